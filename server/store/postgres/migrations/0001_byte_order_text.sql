-- The API must answer in the same order on both backends (issue 14 §2). SQLite compares text byte
-- by byte (BINARY) and its lower() and LIKE fold ASCII only; a PostgreSQL database does the same
-- only with the C (or C.UTF-8) locale from libc and UTF-8 text. Refuse any other database rather
-- than sort differently without a word. Create it with:
--   CREATE DATABASE caudal ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0;
DO $$
DECLARE
	db record;
BEGIN
	SELECT datcollate, datctype, datlocprovider, pg_encoding_to_char(encoding) AS encoding INTO db
	FROM pg_database WHERE datname = current_database();
	IF db.encoding <> 'UTF8' OR db.datlocprovider <> 'c'
		OR db.datcollate NOT IN ('C', 'POSIX', 'C.UTF-8', 'C.utf8') THEN
		RAISE EXCEPTION 'Caudal needs a UTF8 database with the C locale (text sorted byte by byte, as on SQLite); database % has encoding %, collation % (provider %)',
			current_database(), db.encoding, db.datcollate, db.datlocprovider
			USING HINT = 'CREATE DATABASE caudal ENCODING ''UTF8'' LOCALE ''C'' TEMPLATE template0';
	END IF;
END $$;
