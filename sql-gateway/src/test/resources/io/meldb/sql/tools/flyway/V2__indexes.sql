CREATE INDEX purchase_customer_idx ON purchase (customer_id);
CREATE UNIQUE INDEX customer_name_email_idx ON customer (name, email);
