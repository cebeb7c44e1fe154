-- API tokens carry a scope: read, run or admin. Tokens made before scopes existed could do everything a browser
-- session can but manage tokens: they become admin tokens, so no script stops working; new tokens default to run.
ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin';
