#!/usr/bin/env python3
"""Writes tests/data/torchao/ (the default output folder): safetensors files as torchao's safetensors support
(torchao/prototype/safetensors: flatten_tensor_state_dict, TensorSubclassAttributeJSONEncoder) writes them, made by
hand because no upstream-written torchao safetensors fixture exists and torchao is not installable here (Debian 12
has no torchao; python3-torch 1.13 has no float8 dtypes). Stdlib only, deterministic.

Names and metadata follow torchao exactly: the first release names a subclass's data `<name>:<data>` and a plain
tensor `<name>:_data`; later releases `<module>._<attr>_<data>` and the plain tensor under its own name. __metadata__
holds "tensor_names" (a JSON list) and under each name json.dumps of {"_type", "_data": attributes (optional ones
first, as the encoder walks them), "_tensor_data_names" (later releases)}, beside "format": "pt".

ref.safetensors holds "<module>.<attr>" = what the subclass's dequantize() returns, as float32: Float8Tensor
(_dequantize_affine_float8) f32(qdata) * scale rounded to the metadata's dtype; Int8Tensor (dequantize_affine, no
zero point) the same with the scale in the weight's dtype. Computed here from the formula with Python floats: the
product of two floats of at most 24 significant bits is exact in a double, then rounded to f32 and to bf16 / f16
with round-to-nearest-even (the casts torch makes).
"""
import json, os, random, struct, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "torchao")


def safetensors(path, tensors, metadata):
    """tensors: {name: (dtype, shape, bytes)}; the header sorted by name, padded with spaces to 8 bytes."""
    header, data = {}, b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


ROUND = {"float32": f32, "bfloat16": bf16, "float16": f16}


def fp8(code, e5m2):
    """The value of a float8_e4m3fn / float8_e5m2 byte (NaN and infinity codes are never drawn)."""
    s = -1.0 if code & 0x80 else 1.0
    if e5m2:
        e, m = (code >> 2) & 0x1F, code & 3
        return s * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))
    e, m = (code >> 3) & 0xF, code & 7
    return s * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


def fp8_codes(rng, n, e5m2):
    """Random codes but NaN and infinity (verify counts those as errors of the checkpoint)."""
    nan = (lambda c: (c >> 2) & 0x1F == 31) if e5m2 else (lambda c: c & 0x7F == 0x7F)
    out = []
    while len(out) < n:
        c = rng.randrange(256)
        if not nan(c):
            out.append(c)
    return out


def packf(fmt, values):
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def bf16_bytes(values):
    return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:] for v in values)


def f16_bytes(values):
    return packf("e", values)


def torch_dtype(name):
    return {"_type": "torch.dtype", "_data": name}


MM_CONFIG = {"_type": "Float8MMConfig", "_data": {"emulate": False, "use_fast_accum": True, "pad_inner_dim": False}}
KERNEL_AUTO = {"_type": "KernelPreference", "_data": "AUTO"}


def float8_meta(block, dtype, v1):
    if v1:  # the first release's Float8Tensor attributes, no _tensor_data_names
        data = {"block_size": block, "mm_config": MM_CONFIG, "hp_value_lb": None, "hp_value_ub": None,
                "act_quant_kwargs": None, "kernel_preference": KERNEL_AUTO, "dtype": torch_dtype(dtype)}
        return {"_type": "Float8Tensor", "_data": data}
    data = {"block_size": block, "mm_config": MM_CONFIG, "act_quant_kwargs": None, "kernel_preference": KERNEL_AUTO,
            "dtype": torch_dtype(dtype)}
    return {"_type": "Float8Tensor", "_data": data, "_tensor_data_names": ["qdata", "scale"]}


def int8_meta(block, dtype):
    data = {"act_quant_kwargs": None, "block_size": block, "dtype": torch_dtype(dtype)}
    return {"_type": "Int8Tensor", "_data": data, "_tensor_data_names": ["qdata", "scale"]}


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def scale_index(idx, shape, scale_shape):
    """The flat index of the scale of element `idx` (a multi-index): qdata's dims over the scale's give blocks."""
    if prod(scale_shape) == 1:
        return 0
    i = 0
    for d in range(len(shape)):
        i = i * scale_shape[d] + idx[d] // (shape[d] // scale_shape[d])
    return i


def multi_index(flat, shape):
    idx = []
    for d in reversed(shape):
        idx.append(flat % d)
        flat //= d
    return list(reversed(idx))


class Writer:
    def __init__(self, v1):
        self.v1, self.tensors, self.meta, self.names, self.ref = v1, {}, {"format": "pt"}, [], {}

    def data_name(self, name, data):
        module, attr = name.rsplit(".", 1)
        return "%s:%s" % (name, data) if self.v1 else "%s._%s_%s" % (module, attr, data)

    def plain(self, name, shape, rng):
        values = [f32(rng.uniform(-1, 1)) for _ in range(prod(shape))]
        self.tensors[name + ":_data" if self.v1 else name] = ("F32", shape, packf("f", values))
        self.meta[name] = json.dumps({"_type": "Tensor"})
        self.names.append(name)

    def subclass(self, name, meta, data, ref=None, listed=True):
        for key, tensor in data.items():
            self.tensors[self.data_name(name, key)] = tensor
        if listed:
            self.meta[name] = json.dumps(meta)
            self.names.append(name)
        if ref is not None:
            self.ref[name] = ref

    def float8(self, name, shape, scale_shape, dtype, rng, e5m2=False, block=None):
        codes = fp8_codes(rng, prod(shape), e5m2)
        scales = [f32(rng.uniform(0.5, 4.0) / 448) for _ in range(prod(scale_shape))]
        ref = []
        for i, c in enumerate(codes):
            s = scales[scale_index(multi_index(i, shape), shape, scale_shape)]
            ref.append(ROUND[dtype](f32(fp8(c, e5m2) * s)))
        block = block if block is not None else [shape[d] // scale_shape[d] for d in range(len(shape))]
        data = {"qdata": ("F8_E5M2" if e5m2 else "F8_E4M3", shape, bytes(codes)),
                "scale": ("F32", scale_shape, packf("f", scales))}
        self.subclass(name, float8_meta(block, dtype, self.v1), data, (shape, ref))

    def int8(self, name, shape, scale_shape, dtype, rng, block=None):
        codes = [rng.randrange(-128, 128) for _ in range(prod(shape))]
        scales = [ROUND[dtype](rng.uniform(0.001, 0.05)) for _ in range(prod(scale_shape))]
        ref = [ROUND[dtype](f32(c * scales[scale_index(multi_index(i, shape), shape, scale_shape)]))
               for i, c in enumerate(codes)]
        raw = {"bfloat16": bf16_bytes, "float16": f16_bytes, "float32": lambda v: packf("f", v)}[dtype](scales)
        block = block if block is not None else [shape[d] // scale_shape[d] for d in range(len(shape))]
        data = {"qdata": ("I8", shape, packf("b", codes)),
                "scale": ({"bfloat16": "BF16", "float16": "F16", "float32": "F32"}[dtype], scale_shape, raw)}
        self.subclass(name, int8_meta(block, dtype), data, (shape, ref))

    def write(self, folder, config):
        os.makedirs(folder, exist_ok=True)
        self.meta["tensor_names"] = json.dumps(self.names)
        safetensors(os.path.join(folder, "model.safetensors"), self.tensors, self.meta)
        if self.ref:
            safetensors(os.path.join(folder, "ref.safetensors"),
                        {n: ("F32", shape, packf("f", ref)) for n, (shape, ref) in self.ref.items()},
                        {"format": "pt"})
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=1, sort_keys=True)
            f.write("\n")


def config(quant_type):
    return {"_fixture_note": "tensor-level fixture, not a loadable model", "model_type": "llama",
            "quantization_config": {"quant_method": "torchao", "quant_type": {"default": quant_type}}}


def main():
    rng = random.Random(31)
    # The first release's names: Float8Tensor per row (E4M3, bf16) and per tensor (E5M2, f16).
    w = Writer(v1=True)
    w.float8("model.layers.0.self_attn.q_proj.weight", [16, 64], [16, 1], "bfloat16", rng)
    w.float8("model.layers.0.mlp.down_proj.weight", [24, 32], [1, 1], "float16", rng, e5m2=True)
    w.plain("model.layers.0.mlp.down_proj.bias", [24], rng)
    w.write(os.path.join(OUT, "float8-v1"),
            config({"_type": "Float8WeightOnlyConfig", "_data": {"weight_dtype": torch_dtype("float8_e4m3fn")}}))

    # Later names: Int8Tensor per row (bf16 scale), Float8Tensor in 8x32 blocks, a 3-D MoE parameter per row.
    w = Writer(v1=False)
    w.int8("model.layers.0.mlp.gate_proj.weight", [12, 48], [12, 1], "bfloat16", rng)
    w.float8("model.layers.0.mlp.up_proj.weight", [16, 64], [2, 2], "float32", rng)
    w.float8("model.layers.0.mlp.experts.gate_up_proj", [2, 8, 32], [2, 8, 1], "bfloat16", rng)
    w.plain("model.layers.0.mlp.gate_proj.bias", [12], rng)
    w.write(os.path.join(OUT, "int8-float8-v2"),
            config({"_type": "Int8WeightOnlyConfig", "_data": {"group_size": None, "version": 2}}))

    # Named, not decoded, or refused: a packed kind, an unknown kind, codes without metadata, a scale that does not
    # tile its codes, a block_size the scale contradicts, a data member the metadata lists but the file lacks.
    w = Writer(v1=False)
    qdata = ("I32", [8, 2, 32, 4], packf("i", [rng.randrange(-2 ** 31, 2 ** 31) for _ in range(8 * 2 * 32 * 4)]))
    sz = ("BF16", [2, 64, 2], bf16_bytes([rng.uniform(-1, 1) for _ in range(2 * 64 * 2)]))
    w.subclass("model.layers.0.mlp.down_proj.weight",
               {"_type": "Int4TilePackedTo4dTensor", "_data": {"block_size": [1, 128], "shape": [64, 256]},
                "_tensor_data_names": ["qdata", "scale_and_zero"]},
               {"qdata": qdata, "scale_and_zero": sz})
    fp8 = ("F8_E4M3", [8, 64], bytes(fp8_codes(rng, 8 * 64, False)))
    w.subclass("model.layers.1.mlp.down_proj.weight",
               {"_type": "Float8FutureTensor", "_data": {}, "_tensor_data_names": ["qdata", "scale"]},
               {"qdata": fp8, "scale": ("F32", [8, 1], packf("f", [0.01] * 8))})
    w.subclass("model.layers.2.mlp.down_proj.weight", None,
               {"qdata": fp8, "scale": ("F32", [8, 1], packf("f", [0.01] * 8))}, listed=False)
    w.subclass("model.layers.3.mlp.down_proj.weight", float8_meta([3, 64], "bfloat16", False),
               {"qdata": fp8, "scale": ("F32", [3, 1], packf("f", [0.01] * 3))})
    w.subclass("model.layers.4.mlp.down_proj.weight", int8_meta([1, 32], "bfloat16"),
               {"qdata": ("I8", [8, 64], bytes(512)), "scale": ("BF16", [8, 1], bf16_bytes([0.01] * 8))})
    w.subclass("model.layers.5.mlp.down_proj.weight", float8_meta([1, 64], "bfloat16", False), {"qdata": fp8})
    w.write(os.path.join(OUT, "named-v2"),
            config({"_type": "Int4WeightOnlyConfig", "_data": {"group_size": 128, "version": 2}}))


if __name__ == "__main__":
    main()
