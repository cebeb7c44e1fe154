-- Why a breaching evaluation may have breached, as its alert says it: what differs between what answered its run
-- and its baseline's (the replies' model, system_fingerprint and Server header, the cache, the server's queue and
-- acceptance), the run's validity verdict and its slowest requests, as JSON. NULL for evaluations that did not
-- breach and for those stored before this column.
ALTER TABLE guard_evaluations ADD COLUMN context TEXT;
