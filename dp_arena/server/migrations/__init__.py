"""The Alembic migrations of the server's database (run by :meth:`Database.migrate`)."""
