// Command telha is the Telha Core operator CLI.
//
//	telha demo [-data DIR] [-force]         a three-tenant demo in an embedded RocksDB store
//	telha demo -etcd ENDPOINTS              the same demo on an etcd cluster
//	telha cluster -data DIR [-members 3] [-port P]  an etcd cluster on loopback, until SIGINT or SIGTERM
//	telha repair -data DIR                  make a damaged store open again, reporting what was dropped
//	telha debug decode-key <family> <hex>   render one key readably
//	telha debug layout                      print the key layout document
//
// Every usage or input error prints one line on stderr and exits with
// status 2; nothing panics on bad input.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
