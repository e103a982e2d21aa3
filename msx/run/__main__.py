"""`python -m msx.run`: msrun."""
import sys

from . import main

sys.exit(main())
