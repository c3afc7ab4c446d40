#!/usr/bin/env python3
"""Prints the mean microseconds to create and close one empty file in DIR (500 files)."""
import os
import shutil
import sys
import tempfile
import time

d = tempfile.mkdtemp(dir=sys.argv[1])
t0 = time.perf_counter()
for i in range(500):
    os.close(os.open(os.path.join(d, f"f{i}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
print(f"{(time.perf_counter() - t0) / 500 * 1e6:.0f}")
shutil.rmtree(d)
