ALTER TABLE customer ADD CONSTRAINT customer_email_key UNIQUE (email);
INSERT INTO customer (id, email, name) VALUES (1, 'ada@example.org', 'Ada');
INSERT INTO purchase (customer_id, amount) VALUES (1, 12.50), (1, 7.25);
