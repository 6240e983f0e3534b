// Package storetest makes a real session database fail the way a full
// disk does, for tests of what howl stores when a write fails.
package storetest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// FailTurnWrites makes every write of a message to the database at path
// fail with SQLite's "database or disk is full" (a trigger, installed
// through a connection of its own), until the returned function removes
// it. Sessions themselves can still be inserted, so a store that wrote a
// session before its turn would keep an empty one.
func FailTurnWrites(t testing.TB, path string) (restore func()) {
	t.Helper()
	exec := func(q string) {
		t.Helper()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TRIGGER storetest_disk_full BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`)
	return func() { exec(`DROP TRIGGER storetest_disk_full`) }
}
