"""Turn a BERT encoder exported to ONNX (as the langchain4j embedding artifacts on Maven
Central ship bge-small-en-v1.5 and e5-small-v2) into the sentence-transformers directory the
numpy embedder reads: config.json, model.safetensors, tokenizer.json, modules.json,
1_Pooling/config.json, sentence_bert_config.json.

Build-time only (needs the `onnx` package); graphmem itself never reads ONNX. The named
initializers keep their PyTorch names; each projection's weight is anonymous in the export, so
it is named after the bias its MatMul output is added to, and transposed (ONNX MatMul holds
(in, out); a PyTorch Linear holds (out, in)).

    python tools/onnx_bert_to_st.py MODEL.onnx TOKENIZER.json OUT_DIR --pooling cls
"""

from __future__ import annotations

import argparse
import json
import struct
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


def weights(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    named = {k: v for k, v in inits.items() if not k.startswith("onnx::")}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in model.graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits or node.input[1] in named:
            continue
        adds = [n for n in consumers.get(node.output[0], []) if n.op_type == "Add"]
        biases = [i for n in adds for i in n.input if i.endswith(".bias") and i in named]
        if len(biases) != 1:
            raise SystemExit(f"cannot name the weight of MatMul {node.name}: biases {biases}")
        named[biases[0][: -len(".bias")] + ".weight"] = inits[node.input[1]].T.copy()
    return named


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, object] = {}
    offset = 0
    blobs = []
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype=np.float32).tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        blobs.append(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("onnx_file", type=Path)
    parser.add_argument("tokenizer", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--pooling", choices=("cls", "mean"), required=True)
    parser.add_argument("--lower-case", action="store_true")
    parser.add_argument("--query-prefix", default="", help="the model card's query instruction")
    args = parser.parse_args()
    tensors = weights(onnx.load(str(args.onnx_file)))
    layers = 1 + max(int(k.split(".")[2]) for k in tensors if k.startswith("encoder.layer."))
    vocab, hidden = tensors["embeddings.word_embeddings.weight"].shape
    inter = tensors["encoder.layer.0.intermediate.dense.weight"].shape[0]
    positions = tensors["embeddings.position_embeddings.weight"].shape[0]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "1_Pooling").mkdir(exist_ok=True)
    write_safetensors(args.out / "model.safetensors", tensors)
    (args.out / "tokenizer.json").write_bytes(args.tokenizer.read_bytes())
    config = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": int(hidden),
        "num_hidden_layers": layers,
        "num_attention_heads": int(hidden) // 32,
        "intermediate_size": int(inter),
        "hidden_act": "gelu",
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": int(positions),
        "position_embedding_type": "absolute",
        "type_vocab_size": 2,
        "vocab_size": int(vocab),
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
        {
            "idx": 2,
            "name": "2",
            "path": "2_Normalize",
            "type": "sentence_transformers.models.Normalize",
        },
    ]
    (args.out / "modules.json").write_text(json.dumps(modules, indent=2))
    pooling = {
        "word_embedding_dimension": int(hidden),
        "pooling_mode_cls_token": args.pooling == "cls",
        "pooling_mode_mean_tokens": args.pooling == "mean",
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    }
    (args.out / "1_Pooling" / "config.json").write_text(json.dumps(pooling, indent=2))
    st = {"max_seq_length": 512, "do_lower_case": args.lower_case}
    (args.out / "sentence_bert_config.json").write_text(json.dumps(st, indent=2))
    prompts = {"prompts": {"query": args.query_prefix, "document": ""}}
    (args.out / "config_sentence_transformers.json").write_text(json.dumps(prompts, indent=2))
    print(f"{args.out}: {len(tensors)} tensors, {layers} layers, {hidden} wide, {args.pooling}")


if __name__ == "__main__":
    main()
