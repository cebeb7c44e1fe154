-- The tokenizer a run's workload prompts were made with (the server's /tokenize, a tokenizer.json, or an estimate
-- with a well-known BPE), as JSON, so that its report says whether the lengths it made are exact. NULL for runs
-- without a workload, and for runs stored before this column.
ALTER TABLE runs ADD COLUMN prompt_tokenizer TEXT;
