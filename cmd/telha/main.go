// Command telha is the Telha Core operator CLI.
//
//	telha demo [-data DIR] [-force]         a three-tenant demo in an embedded RocksDB store
//	telha demo -etcd ENDPOINTS              the same demo on an etcd cluster
//	telha cluster -data DIR [-members 3] [-port P]  an etcd cluster on loopback, until SIGINT or SIGTERM
//	telha repair -data DIR                  make a damaged store open again, reporting what was dropped
//	telha tenant provision|list|export|import -data DIR ...  provision, list, export and import tenants
//	telha debug decode-key <family> <hex>   render one key readably
//	telha debug layout                      print the key layout document
//
// Exit status (exit.go): 0 done, 1 an operation failed, 2 the input was
// refused (one line on stderr, nothing written), 3 an erasure done while
// members of an etcd cluster were down. Every command that opens a store
// does it through openStore (store.go), which finishes interrupted work
// first (lifecycle.Resume). Nothing panics on bad input.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
