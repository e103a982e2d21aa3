"""Write tests/golden/dataset_vision/tiny.mp4 (4 frames of 16x12, MPEG-4 part 2, 5 fps) with PyAV; MindSpore's venv
has no PyAV, so the file is committed and both sides read it.

    python tests/golden/dataset_vision/make_video.py
"""
import os

import av
import numpy as np

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny.mp4")

if __name__ == "__main__":
    out = av.open(PATH, "w")
    stream = out.add_stream("mpeg4", rate=5)
    stream.width, stream.height, stream.pix_fmt = 16, 12, "yuv420p"
    for i in range(4):
        img = np.zeros((12, 16, 3), np.uint8)
        img[:, :, 0] = i * 60
        img[2:6, 3 + i:8 + i] = 200
        for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
            out.mux(packet)
    for packet in stream.encode():
        out.mux(packet)
    out.close()
