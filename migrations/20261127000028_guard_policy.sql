-- Guard v2, alerts that behave: a schedule's alert policy (valid-run limits, sustained breaches, recovery, "cannot
-- measure"); why an evaluation was inconclusive and which breaches it left pending; alerts that recovered, and the
-- "cannot measure" kind, whose row has no breach or baseline ('null' JSON in those columns).

-- JSON AlertPolicy; null reads as the defaults
ALTER TABLE guard_schedules ADD COLUMN policy TEXT;

-- JSON InvalidRun, when status = 'inconclusive'
ALTER TABLE guard_evaluations ADD COLUMN invalid TEXT;
-- JSON array of PendingBreach: breaches that did not yet open their alert
ALTER TABLE guard_evaluations ADD COLUMN pending TEXT;

-- breach | cannot_measure
ALTER TABLE guard_alerts ADD COLUMN kind TEXT NOT NULL DEFAULT 'breach';
-- when its recovered (or measurable-again) notice was decided; cleared when it breaches again
ALTER TABLE guard_alerts ADD COLUMN recovered_at BIGINT;
-- JSON CannotMeasure for a 'cannot_measure' alert
ALTER TABLE guard_alerts ADD COLUMN cannot_measure TEXT;
