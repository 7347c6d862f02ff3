CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, price numeric NOT NULL);
INSERT INTO products SELECT i, 'product ' || i, i * 1.5 FROM generate_series(1, 50) AS i;
CREATE TABLE orders (id serial PRIMARY KEY, product_id int REFERENCES products (id), qty int NOT NULL);
INSERT INTO orders (product_id, qty) VALUES (1, 1), (2, 3), (3, 2);
