#!/usr/bin/env python3
"""Every reference tensor of new-formats/*/ref.safetensors against `quantscope-cli dequant` of the
folder's weight of that name, bit for bit (float32 bytes), on each SIMD path given; gpt-oss's
transformers-layout references ([E, in, out]) against the transpose. Needs numpy (python3-numpy).
Usage: check_new_format_refs.py CLI NEW_FORMATS_DIR scalar,avx2,avx512"""
import json, os, struct, subprocess, sys, tempfile

import numpy as np

cli, root, paths = sys.argv[1], sys.argv[2], sys.argv[3].split(",")

def tensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
        h.pop("__metadata__", None)
        base = 8 + n
        for name, t in h.items():
            a, b = t["data_offsets"]
            f.seek(base + a)
            yield name, t["dtype"], f.read(b - a), t["shape"]

def npy_data(path):
    with open(path, "rb") as f:
        raw = f.read()
    hlen = struct.unpack("<H", raw[8:10])[0] if raw[6] == 1 else struct.unpack("<I", raw[8:12])[0]
    off = (10 if raw[6] == 1 else 12) + hlen
    return raw[off:]

total = ok = 0
for folder in sorted(os.listdir(root)):
    ref = os.path.join(root, folder, "ref.safetensors")
    if not os.path.exists(ref):
        continue
    counts = {p: 0 for p in paths}
    n = 0
    for name, dtype, data, rshape in tensors(ref):
        assert dtype == "F32", (folder, name, dtype)
        n += 1
        for p in paths:
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "w.npy")
                weight = name[:-7] if name.endswith(".weight") else name
                r = subprocess.run([cli, "dequant", os.path.join(root, folder), weight, "-o", out, "--dtype", "f32"],
                                   env={**os.environ, "QUANTSCOPE_SIMD": p}, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"  {folder} {name} [{p}]: exit {r.returncode}: {r.stderr.strip()[:200]}")
                    continue
                got = npy_data(out)
                if not name.endswith(".weight") and "experts" in name:
                    # transformers' GptOssExperts layout [E, in, out]: the transpose of ours

                    e, i, o = rshape
                    got = np.frombuffer(got, dtype="<f4").reshape(e, o, i).transpose(0, 2, 1).tobytes()
                if got == data:
                    counts[p] += 1
                else:
                    print(f"  {folder} {name} [{p}]: differs ({len(got)} vs {len(data)} bytes)")
    total += n * len(paths)
    ok += sum(counts.values())
    print(f"{folder}: {n} reference tensors; bit-exact " + ", ".join(f"{p} {c}/{n}" for p, c in counts.items()))
print(f"total {ok} of {total} (tensor, path) pairs bit-exact")
