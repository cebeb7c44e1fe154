-- What a workload's request asked for, beside what the server reported: the prompt as its row shows it (a
-- workload's prompts are made per request, not kept in the plan), the prompt's length as drawn, the length the
-- tokenizer made it, the answer's length asked, and the prompt tokens the server said it served from its cache.
-- NULL for runs without a workload (cached tokens: also for servers that did not say).
ALTER TABLE run_iterations ADD COLUMN prompt TEXT;
ALTER TABLE run_iterations ADD COLUMN asked_input_tokens BIGINT;
ALTER TABLE run_iterations ADD COLUMN made_input_tokens BIGINT;
ALTER TABLE run_iterations ADD COLUMN asked_output_tokens BIGINT;
ALTER TABLE run_iterations ADD COLUMN cached_tokens BIGINT;
