// Command telha is the Telha Core operator CLI.
//
// The commands (TestDocs keeps this list equal to the command table):
//
//	telha demo [-data DIR] [-force] | telha demo -etcd ENDPOINTS
//	    build a three-tenant demo graph and query it
//	telha cluster -data DIR [-members 3] [-port P]
//	    run an etcd cluster of member processes on loopback until interrupted
//	telha repair -data DIR
//	    make a damaged RocksDB store open again, reporting what was dropped
//	telha tenant provision STORE -scope TENANT:ORG -name NAME
//	    register a new tenant (creates a RocksDB store if missing)
//	telha tenant list STORE [-o table|json]
//	    list the tenants of the registry
//	telha tenant export STORE -scope TENANT:ORG|NAME -o FILE
//	    write a tenant's rows to a new export file
//	telha tenant import STORE -scope TENANT:ORG|NAME FILE
//	    read an export into a provisioned, empty tenant
//	telha tenant erase STORE -scope TENANT:ORG|NAME [-yes] [-dry-run] [-unregistered] [-o table|json]
//	    erase a tenant physically, verified, recorded in the ledger
//	telha tenant verify STORE -scope TENANT:ORG|NAME [-o table|json]
//	    count a tenant's rows per family; exit 0 only if none
//	telha entity erase STORE -scope TENANT:ORG|NAME -id UUID [-yes] [-dry-run] [-unregistered] [-o table|json]
//	    erase one entity of a tenant physically
//	telha source put STORE -scope TENANT:ORG|NAME FILE
//	    ingest FILE (canonical text: valid UTF-8); prints its blob id
//	telha source get STORE -scope TENANT:ORG|NAME -id ID
//	    print the text of blob ID
//	telha source facts STORE -scope TENANT:ORG|NAME -id ID [-o table|json]
//	    list the passages of blob ID and the facts asserted from them
//	telha source redact STORE -scope TENANT:ORG|NAME -id ID -range START:END [-range START:END ...] [-erase-facts] [-yes] [-dry-run] [-unregistered] [-o table|json]
//	    take the bytes [START, END) of a document's original text out for good
//	telha source delete STORE -scope TENANT:ORG|NAME -id ID [-erase-facts] [-yes] [-dry-run] [-unregistered] [-o table|json]
//	    delete blob ID for good; its text is refused from then on
//	telha checkpoint STORE -to CKPT
//	    write a consistent copy of a store
//	telha restore -from CKPT -data NEWDIR -ledger DIR_OR_LEDGER_FILE [-foreign-ledger]
//	    restore a checkpoint into a new RocksDB store, replaying later erasures
//	telha ledger export STORE -o FILE
//	    write the erasure ledger to a file, for telha restore -ledger
//	telha ledger list STORE [-o table|json]
//	    list the erasures the ledger records
//	telha serve STORE [-listen ADDR] [-tls-cert FILE -tls-key FILE] [-insecure] [-tenant-concurrency N] [-tenant-queue N] [-tenant-rate R] [-tenant-burst N]
//	    serve the tenant API (gRPC, gRPC-Web, Connect JSON, MCP) until interrupted
//	telha key create STORE -scope TENANT:ORG|NAME [-name LABEL] [-expires DURATION]
//	    create an API key; prints its token, once, on the last line
//	telha key list STORE [-o table|json]
//	    list the API keys (never their tokens)
//	telha key revoke STORE -id KEY_ID
//	    revoke an API key from its next request on
//	telha debug decode-key FAMILY HEX [-o table|json]
//	    render one key readably
//	telha debug keys STORE -scope TENANT:ORG|NAME -family F [-limit N] [-after HEX] [-o table|json]
//	    list a tenant's keys, decoded, a page at a time
//	telha debug layout
//	    print the key layout document (docs/key-layout.md)
//	telha completion bash|zsh|fish|powershell
//	    print a shell completion script
//	telha --version
//	    print the module version and VCS revision
//
// STORE is -data DIR, an embedded RocksDB store, or -etcd ENDPOINTS
// [-namespace NS], a namespace of an etcd cluster; TELHA_DATA,
// TELHA_ETCD_ENDPOINTS and TELHA_ETCD_NAMESPACE stand in for a flag not
// given. Flags may come anywhere on the line, spelled -name or --name;
// -h after any command prints its usage and flags and exits 0.
//
// Exit status (exit.go): 0 done, 1 an operation failed, 2 the input was
// refused (one line on stderr, nothing written), 3 an erasure done while
// members of an etcd cluster were down. Every command that opens a store
// does it through the store kit (store.go), which classifies open errors
// once and finishes interrupted work first (lifecycle.Resume). Nothing
// panics on bad input.
//
// The command table (commands.go) drives dispatch, help, completion, this
// list and the README's: to add a command, write one file that defines
// its flags and its run (a func(*pflag.FlagSet) runner) and add one entry
// to commandTable, saying which of the shared flags it takes (the store
// flags, -scope, -o). Then run go test -run TestDocs -update to rewrite
// this list and the README's, and give the command's common mistakes to
// TestCommonMistakes (table_test.go), which fails for a command without.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
