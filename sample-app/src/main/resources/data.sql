-- Counter 1 is for POST /counters/1/increment; counter 2 is the row the contention experiment fights over.
INSERT INTO counter (id, total, version) VALUES (1, 0, 0), (2, 0, 0);
