-- What the last Spec Lab probe found at a connector's server: its engine (vllm, sglang, llama_cpp, tgi), or NULL
-- when it told none, and when it was probed. Cleared when the connector's base URL changes (another server).
ALTER TABLE connectors ADD COLUMN server_kind TEXT;
ALTER TABLE connectors ADD COLUMN probed_at BIGINT;
