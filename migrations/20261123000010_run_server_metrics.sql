-- What a run recorded of its server's own metrics (JSON: engine, load samples, speculative-decoding window), for
-- connectors whose server a Spec Lab probe identified. NULL: not recorded.
ALTER TABLE runs ADD COLUMN server_metrics TEXT;
