#!/usr/bin/env python3
"""PyAV's seek-and-decode loop, the yardstick of `Scripts/bench --sampling` (never a dependency of
the package or its tests): for each frame number, seek to the key frame at or before its time,
decode forward to it, and convert it to 240-pixel-wide RGB (`reformat`, the libswscale
conversion `to_ndarray` makes, without needing numpy), as PyAV users sample frames.

    pyav-sampling.py FILE N,N,...     (a constant frame rate file; N counted from 0)
"""
import sys

import av

path, numbers = sys.argv[1], [int(n) for n in sys.argv[2].split(",")]
container = av.open(path)
stream = container.streams.video[0]
stream.thread_type = "AUTO"
rate, base = stream.average_rate, stream.time_base
start = stream.start_time or 0
height = round(240 * stream.codec_context.height / stream.codec_context.width / 2) * 2
for number in numbers:
    target = start + int(number / rate / base)
    container.seek(target, stream=stream, backward=True, any_frame=False)
    for frame in container.decode(stream):
        if frame.pts is not None and frame.pts >= target:
            bytes(frame.reformat(width=240, height=height, format="rgb24").planes[0])
            break
