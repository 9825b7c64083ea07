# expect: exception
import sqlite3

db = sqlite3.connect("file:__SECRET_DIR__/pathways.sqlite3?mode=ro", uri=True)
print(db.execute("select * from sqlite_master").fetchall())
