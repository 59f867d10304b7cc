#!/usr/bin/env python3
"""Writes a llama-shaped F16 checkpoint (7B by default: 32 layers, hidden 4096, FFN 11008, vocab
32000; 13.5 GB) for the whole-checkpoint benchmarks (README, Benchmarks): quantize it with
quantscope-cli to a Q4_K_M-like GGUF or a GPTQ folder, then time verify, stats and diff against
reading the files.

  make_llama_shaped.py gguf OUT.gguf          a GGUF in llama.cpp's names
  make_llama_shaped.py safetensors OUTDIR     a Hugging Face folder (model.safetensors, config.json)
  make_llama_shaped.py shard FOLDER N         splits FOLDER/model.safetensors into N shards and an index
  (shape options: --layers N --hidden H --ffn F --vocab V)

The values are normal (sigma 0.02) from a fixed 4 Mi-value pool, each tensor starting at its own
place in it, so writing is as fast as the disk and every build of the file is the same."""
import argparse, json, os, random, struct

F32, F16 = 0, 1
ALIGN = 32


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, value):
    if isinstance(value, str):
        return gguf_string(key) + struct.pack("<I", 8) + gguf_string(value)
    if isinstance(value, float):
        return gguf_string(key) + struct.pack("<If", 6, value)
    return gguf_string(key) + struct.pack("<II", 4, value)  # uint32


POOL_VALUES = 1 << 22


def f16_pool():
    rng = random.Random(20261207)
    pool = struct.pack("<%de" % POOL_VALUES, *(rng.gauss(0.0, 0.02) for _ in range(POOL_VALUES)))
    return pool + pool  # any window of up to the pool's size can be sliced without wrapping


def write_values(out, pool, i, dtype, size):
    """Tensor number i's `size` bytes: ones for the F32 norms, the pool from i's own place for F16."""
    if dtype == F32:
        out.write(struct.pack("<%df" % (size // 4), *([1.0] * (size // 4))))
        return
    start = (i * 2654435761 % POOL_VALUES) * 2
    written = 0
    while written < size:
        chunk = min(size - written, POOL_VALUES * 2)
        out.write(pool[start:start + chunk])
        written += chunk


def element_bytes(dims, dtype):
    n = 1
    for d in dims:
        n *= d
    return n * (2 if dtype == F16 else 4)


def write_safetensors(a):
    h, f = a.hidden, a.ffn
    # (name, [rows, cols] as PyTorch stores them, type)
    tensors = [("model.embed_tokens.weight", [a.vocab, h], F16)]
    for i in range(a.layers):
        p = "model.layers.%d." % i
        tensors += [(p + "input_layernorm.weight", [h], F32), (p + "self_attn.q_proj.weight", [h, h], F16),
                    (p + "self_attn.k_proj.weight", [h, h], F16), (p + "self_attn.v_proj.weight", [h, h], F16),
                    (p + "self_attn.o_proj.weight", [h, h], F16), (p + "post_attention_layernorm.weight", [h], F32),
                    (p + "mlp.gate_proj.weight", [f, h], F16), (p + "mlp.up_proj.weight", [f, h], F16),
                    (p + "mlp.down_proj.weight", [h, f], F16)]
    tensors += [("model.norm.weight", [h], F32), ("lm_head.weight", [a.vocab, h], F16)]
    header, off = {}, 0
    for name, dims, t in tensors:
        size = element_bytes(dims, t)
        header[name] = {"dtype": "F16" if t == F16 else "F32", "shape": dims, "data_offsets": [off, off + size]}
        off += size
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    os.makedirs(a.out, exist_ok=True)
    pool = f16_pool()
    with open(os.path.join(a.out, "model.safetensors"), "wb") as out:
        out.write(struct.pack("<Q", len(raw)) + raw)
        for i, (name, dims, t) in enumerate(tensors):
            write_values(out, pool, i, t, element_bytes(dims, t))
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": h,
              "intermediate_size": f, "num_attention_heads": h // 128, "num_key_value_heads": h // 128,
              "num_hidden_layers": a.layers, "vocab_size": a.vocab, "max_position_embeddings": 4096,
              "rms_norm_eps": 1e-5, "hidden_act": "silu", "torch_dtype": "float16"}
    with open(os.path.join(a.out, "config.json"), "w") as c:
        json.dump(config, c, indent=1)


def shard(folder, n):
    """model.safetensors -> model-0000K-of-0000N.safetensors and model.safetensors.index.json, cut
    between tensors at about equal sizes (the input is removed once every shard is written)."""
    path = os.path.join(folder, "model.safetensors")
    with open(path, "rb") as src:
        hlen = struct.unpack("<Q", src.read(8))[0]
        header = json.loads(src.read(hlen))
        meta = header.pop("__metadata__", {"format": "pt"})
        names = sorted(header, key=lambda k: header[k]["data_offsets"][0])
        total = header[names[-1]]["data_offsets"][1]
        groups, current, acc = [], [], 0
        for name in names:
            current.append(name)
            acc += header[name]["data_offsets"][1] - header[name]["data_offsets"][0]
            if acc >= total * (len(groups) + 1) / n and len(groups) < n - 1:
                groups.append(current)
                current = []
        groups.append(current)
        weight_map = {}
        for k, group in enumerate(groups):
            file = "model-%05d-of-%05d.safetensors" % (k + 1, len(groups))
            out_header, off = {"__metadata__": meta}, 0
            for name in group:
                b, e = header[name]["data_offsets"]
                out_header[name] = dict(header[name], data_offsets=[off, off + e - b])
                off += e - b
                weight_map[name] = file
            raw = json.dumps(out_header, separators=(",", ":")).encode()
            raw += b" " * (-len(raw) % 8)
            with open(os.path.join(folder, file), "wb") as out:
                out.write(struct.pack("<Q", len(raw)) + raw)
                for name in group:
                    b, e = header[name]["data_offsets"]
                    src.seek(8 + hlen + b)
                    left = e - b
                    while left:
                        chunk = src.read(min(left, 64 << 20))
                        out.write(chunk)
                        left -= len(chunk)
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as idx:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, idx, indent=1)
    os.remove(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["gguf", "safetensors", "shard"])
    ap.add_argument("out")
    ap.add_argument("count", nargs="?", type=int, default=4)
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--ffn", type=int, default=11008)
    ap.add_argument("--vocab", type=int, default=32000)
    a = ap.parse_args()
    if a.kind == "safetensors":
        return write_safetensors(a)
    if a.kind == "shard":
        return shard(a.out, a.count)
    write_gguf(a)


def write_gguf(a):
    h, f = a.hidden, a.ffn
    # (name, ggml dims ne0 (input, contiguous) first, type)
    tensors = [("token_embd.weight", [h, a.vocab], F16)]
    for i in range(a.layers):
        p = "blk.%d." % i
        tensors += [(p + "attn_norm.weight", [h], F32), (p + "attn_q.weight", [h, h], F16),
                    (p + "attn_k.weight", [h, h], F16), (p + "attn_v.weight", [h, h], F16),
                    (p + "attn_output.weight", [h, h], F16), (p + "ffn_norm.weight", [h], F32),
                    (p + "ffn_gate.weight", [h, f], F16), (p + "ffn_up.weight", [h, f], F16),
                    (p + "ffn_down.weight", [f, h], F16)]
    tensors += [("output_norm.weight", [h], F32), ("output.weight", [h, a.vocab], F16)]

    meta = [("general.architecture", "llama"), ("general.name", "llama-shaped %d layers" % a.layers),
            ("general.file_type", 1), ("llama.vocab_size", a.vocab), ("llama.context_length", 4096),
            ("llama.embedding_length", h), ("llama.block_count", a.layers),
            ("llama.feed_forward_length", f), ("llama.attention.head_count", h // 128),
            ("llama.attention.head_count_kv", h // 128), ("llama.rope.dimension_count", 128),
            ("llama.attention.layer_norm_rms_epsilon", 1e-5)]

    sizes, offsets, off = [], [], 0
    for name, dims, t in tensors:
        size = element_bytes(dims, t)
        offsets.append(off)
        sizes.append(size)
        off += size + (-size % ALIGN)

    pool = f16_pool()
    with open(a.out, "wb") as out:
        head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
        head += b"".join(kv(k, v) for k, v in meta)
        for (name, dims, t), o in zip(tensors, offsets):
            head += gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
            head += struct.pack("<IQ", t, o)
        head += b"\0" * (-len(head) % ALIGN)
        out.write(head)
        for i, ((name, dims, t), size) in enumerate(zip(tensors, sizes)):
            write_values(out, pool, i, t, size)
            out.write(b"\0" * (-size % ALIGN))


if __name__ == "__main__":
    main()
