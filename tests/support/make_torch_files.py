#!/usr/bin/python3
"""Writes the PyTorch checkpoints of tests/data/pytorch (committed; README there says which torch
wrote them). Needs Debian's python3-torch (Debian 12: torch 1.13.1); the build and the tests do not.

usage: tests/support/make_torch_files.py [OUT_DIR] [FIXTURES_DIR]
  OUT_DIR defaults to tests/data/pytorch, FIXTURES_DIR to ../shared/fixtures.

What torch.save wrote itself:
  dtypes.pt          f32, f16, bf16, f64, i64, i32, i16, i8, u8 and bool tensors of known values
  views.pt           one storage shared by two tensors, views with an offset, a transposed and an
                     expanded view (strided: listed, not decoded), a [2, 32] weight to quantize
  module.pt          nn.Linear(4, 2).state_dict() (with its _metadata); parameters.pt: its parameters
  nested.pt          a training checkpoint: {"state_dict": {...}, "epoch", "lr", "name", "best", "none",
                     "history": [tensor, 2]}
  sharded/           pytorch_model-0000N-of-00002.bin and pytorch_model.bin.index.json
  gptq-w4-g128-sym/, gptq-w4-g32-sym-actorder/, awq-gemm-w4-g128/
                     the fixtures' model.safetensors tensors as pytorch_model.bin, with their configs
  legacy.pt          the pre-1.6 format (_use_new_zipfile_serialization=False): refused
Made by hand (a zip of stored records and a pickle written opcode by opcode):
  v3-float8.pt       torch 2.x's _rebuild_tensor_v3 over an UntypedStorage, dtype float8_e4m3fn
  hostile-*.pt       a GLOBAL os.system, builtins.eval by STACK_GLOBAL, an unknown opcode, deep MARK
                     nesting, a huge numel, a storage offset past the data, a truncated zip, a
                     compressed record, big-endian storages, a missing storage record, a dict that
                     holds itself, a tensor at the root
"""
import collections
import json
import os
import struct
import sys
import zipfile

import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "pytorch"))
fixtures = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "..", "shared", "fixtures"))
os.makedirs(out, exist_ok=True)


def path(*parts):
    p = os.path.join(out, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


# --- what torch.save writes -------------------------------------------------------------------

def values(n, scale, bias):
    return [scale * i + bias for i in range(n)]


dtypes = collections.OrderedDict()
dtypes["f32"] = torch.tensor(values(12, 0.25, -1.0), dtype=torch.float32).reshape(3, 4)
dtypes["f16"] = torch.tensor(values(6, 0.5, -1.5), dtype=torch.float16).reshape(2, 3)
dtypes["bf16"] = torch.tensor(values(4, 2.0, -3.0), dtype=torch.bfloat16)
dtypes["f64"] = torch.tensor(values(2, 0.125, 1.0), dtype=torch.float64)
dtypes["i64"] = torch.tensor([-(2 ** 40), 7, 2 ** 40], dtype=torch.int64)
dtypes["i32"] = torch.tensor([[-2, -1], [1, 2]], dtype=torch.int32)
dtypes["i16"] = torch.tensor([-300, 300], dtype=torch.int16)
dtypes["i8"] = torch.tensor([-128, 0, 127], dtype=torch.int8)
dtypes["u8"] = torch.tensor([0, 1, 128, 200, 255], dtype=torch.uint8)
dtypes["bool"] = torch.tensor([True, False, True, True], dtype=torch.bool)
torch.save(dtypes, path("dtypes.pt"))

base = torch.arange(8, dtype=torch.float32)
views = collections.OrderedDict()
views["embed.weight"] = base.view(2, 4)
views["lm_head.weight"] = base.view(2, 4)  # another tensor object over the same storage
views["tail"] = base[4:]  # storage offset 4
views["row1"] = base.view(2, 4)[1]  # storage offset 4
views["transposed"] = base.view(2, 4).t()  # stride (1, 4)
views["expanded"] = torch.arange(3, dtype=torch.float32).expand(2, 3)  # stride (0, 1)
views["proj.weight"] = torch.tensor(values(64, 0.03125, -1.0), dtype=torch.float32).reshape(2, 32)  # to quantize
torch.save(views, path("views.pt"))

state = collections.OrderedDict()
state["layer.weight"] = torch.tensor(values(4, 1.0, 0.0), dtype=torch.float32).reshape(2, 2)
state["layer.bias"] = torch.tensor([0.5, -0.5], dtype=torch.float32)
torch.save({"state_dict": state, "epoch": 3, "lr": 0.5, "name": "tiny", "best": True, "none": None,
            "history": [torch.tensor([1.0, 2.0]), 2]}, path("nested.pt"))

# A module's state dict carries its _metadata (an OrderedDict's state, set by BUILD); its parameters
# saved as such are rebuilt by torch._utils._rebuild_parameter.
linear = torch.nn.Linear(4, 2)
with torch.no_grad():
    linear.weight.copy_(torch.tensor(values(8, 0.25, -1.0)).reshape(2, 4))
    linear.bias.copy_(torch.tensor([1.5, -1.5]))
torch.save(linear.state_dict(), path("module.pt"))
torch.save(collections.OrderedDict(linear.named_parameters()), path("parameters.pt"))

shards = [collections.OrderedDict(), collections.OrderedDict()]
shards[0]["model.layers.0.mlp.up_proj.weight"] = torch.tensor(values(8, 0.5, -2.0), dtype=torch.float16).reshape(2, 4)
shards[1]["model.layers.0.mlp.down_proj.weight"] = torch.tensor(values(8, -0.5, 2.0), dtype=torch.float16).reshape(4, 2)
weight_map = {}
total = 0
for i, sd in enumerate(shards):
    name = "pytorch_model-%05d-of-%05d.bin" % (i + 1, len(shards))
    torch.save(sd, path("sharded", name))
    for k, v in sd.items():
        weight_map[k] = name
        total += v.numel() * v.element_size()
with open(path("sharded", "pytorch_model.bin.index.json"), "w") as f:
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)


def read_safetensors(file):
    with open(file, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    kinds = {"I32": torch.int32, "F16": torch.float16, "BF16": torch.bfloat16, "F32": torch.float32}
    sd = collections.OrderedDict()
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        data = bytearray(b[8 + n + begin:8 + n + end])
        sd[name] = torch.frombuffer(data, dtype=kinds[info["dtype"]]).reshape(info["shape"]).clone()
    return sd


for fixture in ("gptq-w4-g128-sym", "gptq-w4-g32-sym-actorder", "awq-gemm-w4-g128"):
    src = os.path.join(fixtures, "safetensors", fixture)
    torch.save(read_safetensors(os.path.join(src, "model.safetensors")), path(fixture, "pytorch_model.bin"))
    for side in ("config.json", "quantize_config.json", "quant_config.json"):
        if os.path.exists(os.path.join(src, side)):
            with open(os.path.join(src, side), "rb") as f, open(path(fixture, side), "wb") as g:
                g.write(f.read())

torch.save(dtypes, path("legacy.pt"), _use_new_zipfile_serialization=False)


# --- made by hand ------------------------------------------------------------------------------

def s(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def i(n):
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if -(2 ** 31) <= n < 2 ** 31:
        return b"J" + struct.pack("<i", n)
    b = n.to_bytes(8, "little", signed=True)
    return b"\x8a\x08" + b


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def tup(*items):
    return b"(" + b"".join(items) + b"t"


def storage(cls, key, numel):
    return tup(s("storage"), glob("torch", cls), s(key), s("cpu"), i(numel)) + b"Q"


def tensor_v2(cls, key, numel, offset, size, stride):
    return (glob("torch._utils", "_rebuild_tensor_v2") + tup(storage(cls, key, numel), i(offset), tup(*map(i, size)),
            tup(*map(i, stride)), b"\x89", glob("collections", "OrderedDict") + b")R") + b"R")


def state_dict(*entries):
    """entries: (name, pickled value) pairs, as torch.save writes an OrderedDict."""
    body = b"".join(s(k) + v for k, v in entries)
    return b"\x80\x02" + glob("collections", "OrderedDict") + b")R(" + body + b"u."


def archive(file, pickle, records, byteorder=b"little", compress=False):
    with zipfile.ZipFile(path(file), "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle)
        if byteorder is not None:
            z.writestr("archive/byteorder", byteorder)
        for key, data in records.items():
            z.writestr("archive/data/" + key, data, zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED)
        z.writestr("archive/version", b"3\n")


f32x4 = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)

# torch 2.x's form for dtypes without a typed storage: _rebuild_tensor_v3 over an UntypedStorage.
# float8_e4m3fn bytes 0x38 0x40 0xb8 0x00 are 1.0, 2.0, -1.0, 0.0.
archive("v3-float8.pt", state_dict(("w", glob("torch._utils", "_rebuild_tensor_v3") + tup(
    storage("UntypedStorage", "0", 4), i(0), tup(i(2), i(2)), tup(i(2), i(1)), b"\x89",
    glob("collections", "OrderedDict") + b")R", glob("torch", "float8_e4m3fn")) + b"R")),
    {"0": bytes([0x38, 0x40, 0xB8, 0x00])})

archive("hostile-os-system.pt", b"\x80\x02" + glob("os", "system") + s("echo pwned") + b"\x85R.", {})
archive("hostile-stack-global.pt", b"\x80\x04" + b"\x8c\x08builtins\x8c\x04eval\x93" + s("1") + b"\x85R.", {})
archive("hostile-newobj.pt", b"\x80\x02" + glob("collections", "OrderedDict") + b")\x81.", {})
archive("hostile-deep-mark.pt", b"\x80\x02" + b"(" * 100000 + b".", {})
archive("hostile-huge-numel.pt", state_dict(("w", tensor_v2("FloatStorage", "0", 2 ** 62, 0, [4], [1]))), {"0": f32x4})
archive("hostile-offset-past-data.pt", state_dict(("w", tensor_v2("FloatStorage", "0", 4, 3, [2], [1]))), {"0": f32x4})
archive("hostile-size-overflow.pt", state_dict(("w", tensor_v2("FloatStorage", "0", 4, 0, [2 ** 32, 2 ** 32], [2 ** 32, 1]))),
        {"0": f32x4})
archive("hostile-missing-record.pt", state_dict(("w", tensor_v2("FloatStorage", "7", 4, 0, [4], [1]))), {"0": f32x4})
archive("hostile-big-endian.pt", state_dict(("w", tensor_v2("FloatStorage", "0", 4, 0, [4], [1]))), {"0": f32x4},
        byteorder=b"big")
archive("hostile-compressed.pt", state_dict(("w", tensor_v2("FloatStorage", "0", 4, 0, [4], [1]))), {"0": f32x4},
        compress=True)
# A dict that holds itself: memo 0 is the root, put back into it.
archive("hostile-cycle.pt", b"\x80\x02}q\x00(" + s("self") + b"h\x00u.", {})
archive("hostile-tensor-root.pt", b"\x80\x02" + tensor_v2("FloatStorage", "0", 4, 0, [4], [1]) + b".", {"0": f32x4})
with open(path("dtypes.pt"), "rb") as f:
    whole = f.read()
with open(path("hostile-truncated.pt"), "wb") as f:
    f.write(whole[:len(whole) // 2])

try:
    import subprocess
    package = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"], capture_output=True,
                             text=True).stdout or "unknown"
except OSError:
    package = "unknown"
with open(os.path.join(out, "README.md"), "w") as f:
    f.write("# PyTorch test checkpoints\n\n"
            "Written by tests/support/make_torch_files.py (run with /usr/bin/python3) with torch %s, as Debian 12's "
            "python3-torch %s reports itself, and Python %d.%d; the script's docstring says what each file holds. "
            "The build and the tests need no torch.\n"
            % (torch.__version__, package, sys.version_info[0], sys.version_info[1]))
print("wrote", out, "with torch", torch.__version__)
