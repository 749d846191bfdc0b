#!/usr/bin/env python3
"""Writes tests/llm/fixture_expectations.json from the provider fixtures.

An independent reading of each captured stream (plain Python, written from
the semantics in tests/fixtures/README.md's sources, sharing no code with the C++ decoders): the
assembled text, the client tool calls with their JSON arguments, the neutral
stop reason, the usage and whether the stream ends in an error. The C++ test
then checks its decoders against this table. Review the JSON by eye after
regenerating; it is the golden data.

    python3 tests/llm/tools/make_fixture_expectations.py [FIXTURES]

FIXTURES defaults to tests/fixtures/providers in this checkout.
"""
import json
import pathlib
import sys


def frames(body):
    for block in body.replace("\r\n", "\n").split("\n\n"):
        data = [l[5:].removeprefix(" ") for l in block.split("\n") if l.startswith("data:")]
        if data:
            yield "\n".join(data)


def payloads(body):
    for data in frames(body):
        if data == "[DONE]":
            yield "[DONE]"
            continue
        try:
            yield json.loads(data)
        except json.JSONDecodeError:
            pass


ANTHROPIC_STOP = {"end_turn": "end_turn", "tool_use": "tool_use", "max_tokens": "max_tokens",
                  "stop_sequence": "stop_sequence", "refusal": "refusal", "pause_turn": "pause"}


def usage(input_tokens=0, output_tokens=0, cache_read=0, cache_write=0, reasoning=0):
    return {"input": input_tokens, "output": output_tokens, "cacheRead": cache_read,
            "cacheWrite": cache_write, "reasoning": reasoning}


def anthropic(body):
    blocks, message_id, stop, terminal, error = {}, None, "", False, None
    u = usage()

    def merge(src):
        for key, name in (("input_tokens", "input"), ("output_tokens", "output"),
                          ("cache_read_input_tokens", "cacheRead"),
                          ("cache_creation_input_tokens", "cacheWrite")):
            if isinstance(src.get(key), int):
                u[name] = src[key]
        details = src.get("output_tokens_details") or {}
        if isinstance(details.get("thinking_tokens"), int):
            u["reasoning"] = details["thinking_tokens"]

    for p in payloads(body):
        if not isinstance(p, dict):
            continue
        t = p.get("type")
        if t == "message_start":
            m = p["message"]
            if message_id is not None and m.get("id") == message_id:
                continue
            if message_id is not None:
                blocks, stop, u = {}, "", usage()
            message_id = m.get("id")
            merge(m.get("usage") or {})
        elif t == "content_block_start":
            cb = p["content_block"]
            blocks[p["index"]] = {"type": cb["type"], "text": cb.get("text", "") or "",
                                  "json": "", "id": cb.get("id"), "name": cb.get("name"),
                                  "closed": False}
        elif t == "content_block_delta":
            b, d = blocks[p["index"]], p["delta"]
            if d["type"] == "text_delta":
                b["text"] += d["text"]
            elif d["type"] == "input_json_delta":
                b["json"] += d["partial_json"]
        elif t == "content_block_stop":
            blocks[p["index"]]["closed"] = True
        elif t == "message_delta":
            stop = p["delta"].get("stop_reason") or stop
            merge(p.get("usage") or {})
        elif t == "message_stop":
            terminal = True
        elif t == "error":
            error, terminal = p["error"]["type"], True
    text = "".join(b["text"] for _, b in sorted(blocks.items()) if b["type"] == "text")
    calls = [{"id": b["id"], "name": b["name"], "arguments": json.loads(b["json"] or "{}")}
             for _, b in sorted(blocks.items()) if b["type"] == "tool_use" and b["closed"]]
    return finish(text, calls, ANTHROPIC_STOP.get(stop, "other"), u, terminal, error)


def finish(text, calls, stop, u, terminal, error):
    if error is None and not terminal:
        error = "protocol"
    if error is not None:
        calls, stop = [], "error"
    return {"text": text, "toolCalls": calls, "stopReason": stop, "usage": u,
            "error": error is not None}


CHAT_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
             "content_filter": "refusal"}


def chat(body):
    content, refusal, calls, finish_reason, done, error = "", "", {}, "", False, None
    u = usage()
    for p in payloads(body):
        if p == "[DONE]":
            done = True
            break
        if not isinstance(p, dict):
            continue
        src = p.get("usage") if isinstance(p.get("usage"), dict) else (p.get("x_groq") or {}).get("usage")
        if isinstance(src, dict):
            cached = (src.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
            u = usage(src.get("prompt_tokens", 0) - cached, src.get("completion_tokens", 0), cached, 0,
                      (src.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0)
        if p.get("error"):
            error = p["error"]
        for choice in p.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            d = choice.get("delta") or {}
            content += d.get("content") or ""
            refusal += d.get("refusal") or ""
            for tc in d.get("tool_calls") or []:
                c = calls.setdefault(tc["index"], {"id": "", "name": "", "arguments": ""})
                if tc.get("id"):
                    c["id"] = tc["id"]
                f = tc.get("function") or {}
                if f.get("name"):
                    c["name"] = f["name"]
                c["arguments"] += f.get("arguments") or ""
            finish_reason = choice.get("finish_reason") or finish_reason
    stop = CHAT_STOP.get(finish_reason, "other")
    if not content and refusal:
        stop = "refusal"
    if not finish_reason and calls:
        stop = "tool_use"
    out_calls = []
    if stop != "max_tokens":
        out_calls = [{"id": c["id"], "name": c["name"], "arguments": json.loads(c["arguments"] or "{}")}
                     for _, c in sorted(calls.items())]
        if out_calls and stop == "end_turn":
            stop = "tool_use"
    return finish(content or refusal, out_calls, stop, u, done or bool(finish_reason), error)


def responses(body):
    items, status, reason, error, terminal = {}, "", "", None, False
    u = usage()
    for p in payloads(body):
        if not isinstance(p, dict):
            continue
        t = p.get("type")
        if t == "response.output_item.done":
            index = p.get("output_index", len(items))
            items[index] = p["item"]
        elif t in ("response.completed", "response.incomplete", "response.failed"):
            terminal = True
            r = p["response"]
            status = r.get("status") or t.split(".")[1]
            if isinstance(r.get("usage"), dict):
                src = r["usage"]
                cached = (src.get("input_tokens_details") or {}).get("cached_tokens") or 0
                u = usage(src["input_tokens"] - cached, src["output_tokens"], cached, 0,
                          (src.get("output_tokens_details") or {}).get("reasoning_tokens") or 0)
            for i, item in enumerate(r.get("output") or []):
                items.setdefault(i, item)
            if t == "response.failed":
                error = (r.get("error") or {}).get("code") or "failed"
            if t == "response.incomplete":
                reason = (r.get("incomplete_details") or {}).get("reason") or ""
        elif t == "error":
            error = error or "error"
    text = ""
    calls = []
    for _, item in sorted(items.items()):
        if item.get("type") == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    text += part.get("text", "")
                elif part.get("type") == "refusal":
                    text += part.get("refusal", "")
        elif item.get("type") == "function_call":
            calls.append({"id": item["call_id"], "name": item["name"],
                          "arguments": json.loads(item["arguments"])})
    stop = "end_turn"
    if status == "incomplete":
        stop = "refusal" if reason == "content_filter" else "max_tokens"
        calls = []
    elif calls:
        stop = "tool_use"
    return finish(text, calls, stop, u, terminal, error)


DECODERS = {"anthropic": anthropic, "openai-chat": chat, "openai-responses": responses}


def is_sse_body(path):
    name = path.name
    if name.endswith(".sse") or name.endswith(".bin"):
        return True
    return name.endswith(".txt") and not name.endswith(".chunks.txt")


def main():
    checkout = pathlib.Path(__file__).resolve().parents[3]
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else checkout / "tests/fixtures/providers"
    table = []
    for provider, decode in DECODERS.items():
        for path in sorted((root / provider).iterdir()):
            if is_sse_body(path):
                entry = {"file": f"{provider}/{path.name}"}
                entry.update(decode(path.read_text(encoding="utf-8")))
                table.append(entry)
    out = pathlib.Path(__file__).resolve().parent.parent / "fixture_expectations.json"
    out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table)} fixtures -> {out}")


main()
