#!/usr/bin/env python3
"""Writes the issue 29 memory-safety corpus entries (tests/corpus/, the default output folder): small hand-made
checkpoints whose shapes come from JSON or side tensors and are absurd or disagree."""
import json, os, struct, sys

NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
       -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
       0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
       0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0]

def safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, bytes)."""
    header, data = {}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)

def folder(root, name, tensors, config):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    safetensors(os.path.join(d, "model.safetensors"), tensors)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config, f, indent=1)

def f32(values): return struct.pack("<%df" % len(values), *values)
def i32(values): return struct.pack("<%di" % len(values), *values)
def i64(values): return struct.pack("<%dq" % len(values), *values)

BNB_CONFIG = {"model_type": "llama", "quantization_config": {
    "quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
    "bnb_4bit_use_double_quant": False, "bnb_4bit_quant_storage": "uint8"}}
CT_CONFIG = {"model_type": "llama", "quantization_config": {
    "quant_method": "compressed-tensors", "format": "pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "int", "symmetric": True, "strategy": "channel"}}}}}
GPTQ_CONFIG = {"model_type": "llama", "quantization_config": {
    "quant_method": "gptq", "bits": 4, "group_size": 64, "desc_act": False, "sym": True}}

def bnb(root, name, shape, codes=64):
    """One NF4 weight 'm' of `codes` 4-bit codes (one absmax per 64) whose quant_state says `shape`."""
    state = json.dumps({"quant_type": "nf4", "blocksize": 64, "dtype": "float16", "shape": shape}).encode()
    packed = bytes((i * 37 + 11) & 0xFF for i in range(codes // 2))
    folder(root, name, [
        ("m.weight", "U8", [codes // 2, 1], packed),
        ("m.weight.absmax", "F32", [codes // 64], f32([0.5] * (codes // 64))),
        ("m.weight.quant_map", "F32", [16], f32(NF4)),
        ("m.weight.quant_state.bitsandbytes__nf4", "U8", [len(state)], state),
    ], BNB_CONFIG)

def ct(root, name, shape, rows=4, words=8):
    """One pack-quantized 4-bit weight 'm': weight_packed I32 [rows, words], weight_shape `shape`."""
    folder(root, name, [
        ("m.weight_packed", "I32", [rows, words], i32([(0x12345678 + 977 * i) & 0x7FFFFFFF for i in range(rows * words)])),
        ("m.weight_scale", "F32", [rows, 1], f32([0.01] * rows)),
        ("m.weight_shape", "I64", [2], i64(shape)),
    ], CT_CONFIG)

def gguf(path, tensors, arch="llama"):
    """A GGUF v3 file: general.architecture and tensors (name, ggml type, ne, bytes), 32-aligned."""
    def string(b): return struct.pack("<Q", len(b)) + b
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 1)
    out += string(b"general.architecture") + struct.pack("<I", 8) + string(arch.encode())
    data, offsets = b"", []
    for name, ggml_type, ne, raw in tensors:
        data += b"\0" * (-len(data) % 32)
        offsets.append(len(data))
        data += raw
    for (name, ggml_type, ne, raw), offset in zip(tensors, offsets):
        out += string(name.encode()) + struct.pack("<I", len(ne)) + struct.pack("<%dQ" % len(ne), *ne)
        out += struct.pack("<IQ", ggml_type, offset)
    out += b"\0" * (-len(out) % 32)
    with open(path, "wb") as f:
        f.write(out + data)

def main(root):
    os.makedirs(root, exist_ok=True)
    # 1. [128, 2^62 + 256]: 16 tokens x K wraps to 4096 activations (defaultActivations wrote past them).
    ct(root, "ct-weight-shape-2p62", [128, (1 << 62) + 256])
    bnb(root, "bnb-shape-2p62", [128, (1 << 62) + 256])
    # 3. [2^32, 2^32]: the element count wraps to 0 (stats allocated 10 GiB).
    ct(root, "ct-weight-shape-2p32-squared", [1 << 32, 1 << 32])
    bnb(root, "bnb-shape-2p32-squared", [1 << 32, 1 << 32])
    # 3. No overflow, but far more elements than the bytes hold: 2^40 from 100 bytes.
    bnb(root, "bnb-shape-beyond-bytes", [1 << 20, 1 << 20])
    # 3. Shapes that disagree with the data: dequant wrote (2, 3), (128,) and (0, 64) arrays.
    bnb(root, "bnb-shape-disagrees", [2, 3])
    bnb(root, "bnb-shape-1d-disagrees", [128], codes=128 * 64)
    ct(root, "ct-weight-shape-no-rows", [0, 64])
    # 2. GPTQ with a 1-D qzeros: detection read qzeros' second dimension past its shape.
    folder(root, "gptq-qzeros-1d", [
        ("m.qweight", "I32", [8, 64], i32([(0x01234567 * (i + 1)) & 0x7FFFFFFF for i in range(8 * 64)])),
        ("m.qzeros", "I32", [8], i32([0x77777777] * 8)),
        ("m.scales", "F16", [1, 64], struct.pack("<64e", *([0.01] * 64))),
    ], GPTQ_CONFIG)
    # 7. A float weight with NaN and Inf: quantize_affine converted NaN to unsigned char.
    vals = [((i * 7919) % 200 - 100) / 50.0 for i in range(16 * 64)]
    for i in (3, 70, 200, 513):
        vals[i] = float("nan")
    for i in (5, 600):
        vals[i] = float("inf")
    vals[900] = float("-inf")
    safetensors(os.path.join(root, "f16-nan-inf.safetensors"),
                [("model.layers.0.mlp.up_proj.weight", "F16", [16, 64], struct.pack("<1024e", *vals))])

    # 4. Weights with 0 rows or 0 columns (SIGFPE in the Playground's worker): GGUF ne with a 0,
    # a GPTQ qweight without columns, a compressed-tensors shape without columns, plain F32.
    q4_0 = bytes(18 * 2)  # two Q4_0 blocks of zeros for the full weight beside the empty ones
    gguf(os.path.join(root, "gguf-q4_0-zero-rows-cols.gguf"), [
        ("blk.0.ffn_up.weight", 2, [64, 0], b""),
        ("blk.0.ffn_down.weight", 2, [0, 8], b""),
        ("blk.0.ffn_gate.weight", 2, [32, 2], q4_0),
    ])
    folder(root, "gptq-qweight-no-columns", [
        ("m.qweight", "I32", [8, 0], b""),
        ("m.qzeros", "I32", [1, 0], b""),
        ("m.scales", "F16", [1, 0], b""),
    ], GPTQ_CONFIG)
    ct(root, "ct-weight-shape-no-cols", [4, 0], words=0)
    safetensors(os.path.join(root, "f32-zero-rows-cols.safetensors"), [
        ("empty.rows", "F32", [0, 64], b""),
        ("empty.cols", "F32", [64, 0], b""),
        ("full", "F32", [4, 64], f32([0.25] * 256)),
    ])
    # 7. Non-finite scales (compressed-tensors weight_scale NaN, reported upstream): every value of a
    # row NaN or infinite, requantized by stats (quantize_affine's NaN conversion).
    folder(root, "ct-weight-scale-nan", [
        ("m.weight_packed", "I32", [4, 8], i32([(0x12345678 + 977 * i) & 0x7FFFFFFF for i in range(32)])),
        ("m.weight_scale", "F32", [4, 1], f32([float("nan"), float("inf"), 0.01, float("-inf")])),
        ("m.weight_shape", "I64", [2], i64([4, 64])),
    ], CT_CONFIG)

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus"))
