"""Writes a tiny llama-architecture GGUF model for tests against a real llama.cpp server.

Nothing is downloaded: the weights are made here. Every layer's weights are zero and every token embedding is
the same vector, so the last hidden state is a constant and the output logits are exactly the `output.weight`
rows. The answer tokens get small random logits (sampling picks among them), while end-of-sequence, control and
unknown tokens get -100: a request never ends before `max_tokens`, so a measured failure is never the model's.
The vocabulary is printable ASCII (one character a token, SentencePiece style with '▁' for a space), so every
answer is valid UTF-8.

Beside the model it writes `tokenizer.json`: the same tokenizer for the `tokenizers` library (the same ids, a '▁'
before the text and for each space, and the one merge llama.cpp's SentencePiece tokenizer can make with this
vocabulary, '▁' + 'a': the longer words cannot be reached by merging pairs of tokens of the vocabulary), so a prompt
cut with it counts as the server counts it.

Usage: python3 tiny_gguf.py OUT.gguf
"""

import json
import os
import sys

import gguf
import numpy as np

N_EMBD = 64
N_FF = 128
N_HEAD = 4
N_CTX = 4096
CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def vocabulary():
    tokens = ["<unk>", "<s>", "</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for code in range(33, 127):
        tokens.append(chr(code))
        types.append(gguf.TokenType.NORMAL)
    for word in ["▁", "▁the", "▁a", "▁token", "▁fast", "▁slow", "▁server", "▁answer", "\n"]:
        tokens.append(word)
        types.append(gguf.TokenType.NORMAL)
    return tokens, types


def write_tokenizer_json(path):
    tokens, _ = vocabulary()
    special = [
        {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True}
        for i, t in enumerate(tokens[:3])
    ]
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": special,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        ]},
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ]},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": False, "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": ["\u2581 a"],
        },
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f, ensure_ascii=False)


def main(path):
    write_tokenizer_json(os.path.join(os.path.dirname(os.path.abspath(path)), "tokenizer.json"))
    tokens, types = vocabulary()
    n_vocab = len(tokens)
    rng = np.random.default_rng(7)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("latency-guard tiny test model")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(1)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * n_vocab)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    f32 = np.float32
    writer.add_tensor("token_embd.weight", np.ones((n_vocab, N_EMBD), dtype=f32))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=f32))
    output = np.zeros((n_vocab, N_EMBD), dtype=f32)
    for i, kind in enumerate(types):
        # The hidden state is all ones, so a token's logit is the sum of its row.
        logit = rng.uniform(0.0, 1.0) if kind == gguf.TokenType.NORMAL else -100.0
        output[i, :] = logit / N_EMBD
    writer.add_tensor("output.weight", output)
    zeros = lambda *shape: np.zeros(shape, dtype=f32)
    writer.add_tensor("blk.0.attn_norm.weight", np.ones(N_EMBD, dtype=f32))
    for name in ["attn_q", "attn_k", "attn_v", "attn_output"]:
        writer.add_tensor(f"blk.0.{name}.weight", zeros(N_EMBD, N_EMBD))
    writer.add_tensor("blk.0.ffn_norm.weight", np.ones(N_EMBD, dtype=f32))
    writer.add_tensor("blk.0.ffn_gate.weight", zeros(N_FF, N_EMBD))
    writer.add_tensor("blk.0.ffn_up.weight", zeros(N_FF, N_EMBD))
    writer.add_tensor("blk.0.ffn_down.weight", zeros(N_EMBD, N_FF))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1])
