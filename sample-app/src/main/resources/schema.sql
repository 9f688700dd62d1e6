-- One row per counter, updated under optimistic concurrency control: a writer reads the row,
-- then writes it back only if its version is still the one it read.
CREATE TABLE counter (
	id BIGINT PRIMARY KEY,
	total BIGINT NOT NULL,
	version BIGINT NOT NULL
);
