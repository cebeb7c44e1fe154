-- The workspace owner's contact address for alert e-mail, set once a one-time link sent to it was followed
-- (a wallet's own identity, `<address>@wallet.local`, receives no mail). Schedules may e-mail the owner.
ALTER TABLE workspaces ADD COLUMN contact_email TEXT;
ALTER TABLE workspaces ADD COLUMN contact_verified_at BIGINT;
ALTER TABLE guard_schedules ADD COLUMN email_owner BIGINT NOT NULL DEFAULT 0;

-- Links sent to prove an address: only a keyed hash of the link's token, single use, short-lived.
CREATE TABLE contact_verifications (
    token_hash    TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    email         TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    used_at       BIGINT
);
CREATE INDEX contact_verifications_by_expiry ON contact_verifications (expires_at);
