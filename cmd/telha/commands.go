package main

// commandTable is every command of telha, in the order the help lists
// them. A command is one file, which defines its flags and its run
// (define), and one entry here; the kit (cli.go) gives it the store flags,
// -scope, -o and -q as its entry asks, and checks them and its arguments
// before it runs. The package doc, the README's CLI section and the help
// are tested against this table (table_test.go).
var commandTable = []command{
	{path: "demo", synopsis: "demo [-data DIR] [-force] | telha demo -etcd ENDPOINTS",
		short: "build a three-tenant demo graph and query it", store: storeDemo, define: demoCommand},
	{path: "cluster", synopsis: "cluster -data DIR [-members 3] [-port P]",
		short: "run an etcd cluster of member processes on loopback until interrupted", define: clusterCommand},
	{path: memberCommand, synopsis: memberCommand + " ARGS", short: "one member of telha cluster",
		hidden: true, raw: true, nargs: -1, define: memberMain},
	{path: "repair", synopsis: "repair -data DIR",
		short: "make a damaged RocksDB store open again, reporting what was dropped", define: repairCommand},

	{path: "tenant provision", synopsis: "tenant provision STORE -scope TENANT:ORG -name NAME",
		short: "register a new tenant (creates a RocksDB store if missing)", store: storeAny, scope: true, define: tenantProvision},
	{path: "tenant list", synopsis: "tenant list STORE [-o table|json]",
		short: "list the tenants of the registry", store: storeAny, output: "[]tenantRow", define: tenantList},
	{path: "tenant export", synopsis: "tenant export STORE -scope TENANT:ORG|NAME -o FILE",
		short: "write a tenant's rows to a new export file", store: storeAny, scope: true, define: tenantExport},
	{path: "tenant import", synopsis: "tenant import STORE -scope TENANT:ORG|NAME FILE",
		short: "read an export into a provisioned, empty tenant", store: storeAny, scope: true, nargs: 1, argsName: "FILE", define: tenantImport},
	{path: "tenant erase", synopsis: "tenant erase STORE -scope TENANT:ORG|NAME [-yes] [-dry-run] [-unregistered] [-o table|json]",
		short: "erase a tenant physically, verified, recorded in the ledger", store: storeAny, scope: true, output: "erasureReport", define: tenantErase},
	{path: "tenant verify", synopsis: "tenant verify STORE -scope TENANT:ORG|NAME [-o table|json]",
		short: "count a tenant's rows per family; exit 0 only if none", store: storeAny, scope: true, output: "familyReport", define: tenantVerify},
	{path: "entity erase", synopsis: "entity erase STORE -scope TENANT:ORG|NAME -id UUID [-yes] [-dry-run] [-unregistered] [-o table|json]",
		short: "erase one entity of a tenant physically", store: storeAny, scope: true, output: "erasureReport", define: entityErase},

	{path: "source put", synopsis: "source put STORE -scope TENANT:ORG|NAME FILE",
		short: "ingest FILE (canonical text: valid UTF-8); prints its blob id", store: storeAny, scope: true, nargs: 1, argsName: "FILE", define: sourcePut},
	{path: "source get", synopsis: "source get STORE -scope TENANT:ORG|NAME -id ID",
		short: "print the text of blob ID", store: storeAny, scope: true, define: sourceGet},
	{path: "source facts", synopsis: "source facts STORE -scope TENANT:ORG|NAME -id ID [-o table|json]",
		short: "list the passages of blob ID and the facts asserted from them", store: storeAny, scope: true, output: "[]factRow", define: sourceFacts},
	{path: "source redact", synopsis: "source redact STORE -scope TENANT:ORG|NAME -id ID -range START:END [-range START:END ...] [-erase-facts] [-yes] [-dry-run] [-unregistered] [-o table|json]",
		short: "take the bytes [START, END) of a document's original text out for good", store: storeAny, scope: true, output: "redactionReport", define: sourceRedact},
	{path: "source delete", synopsis: "source delete STORE -scope TENANT:ORG|NAME -id ID [-erase-facts] [-yes] [-dry-run] [-unregistered] [-o table|json]",
		short: "delete blob ID for good; its text is refused from then on", store: storeAny, scope: true, output: "redactionReport", define: sourceDelete},

	{path: "checkpoint", synopsis: "checkpoint STORE -to CKPT",
		short: "write a consistent copy of a store", store: storeAny, define: checkpointCommand},
	{path: "restore", synopsis: "restore -from CKPT -data NEWDIR -ledger DIR_OR_LEDGER_FILE [-foreign-ledger]",
		short: "restore a checkpoint into a new RocksDB store, replaying later erasures", define: restoreCommand},
	{path: "ledger export", synopsis: "ledger export STORE -o FILE",
		short: "write the erasure ledger to a file, for telha restore -ledger", store: storeAny, define: ledgerExport},
	{path: "ledger list", synopsis: "ledger list STORE [-o table|json]",
		short: "list the erasures the ledger records", store: storeAny, output: "[]ledgerRow", define: ledgerList},

	{path: "serve", synopsis: "serve STORE [-listen ADDR] [-tls-cert FILE -tls-key FILE] [-insecure] [-tenant-concurrency N] [-tenant-queue N] [-tenant-rate R] [-tenant-burst N]",
		short: "serve the tenant API (gRPC, gRPC-Web, Connect JSON, MCP) until interrupted", store: storeAny, define: serveCommand},
	{path: "key create", synopsis: "key create STORE -scope TENANT:ORG|NAME [-name LABEL] [-expires DURATION]",
		short: "create an API key; prints its token, once, on the last line", store: storeAny, scope: true, define: keyCreate},
	{path: "key list", synopsis: "key list STORE [-o table|json]",
		short: "list the API keys (never their tokens)", store: storeAny, output: "[]apiKeyRow", define: keyList},
	{path: "key revoke", synopsis: "key revoke STORE -id KEY_ID",
		short: "revoke an API key from its next request on", store: storeAny, define: keyRevoke},

	{path: "debug decode-key", synopsis: "debug decode-key FAMILY HEX [-o table|json]",
		short: "render one key readably", output: "keyRow", nargs: -1, define: decodeKey},
	{path: "debug keys", synopsis: "debug keys STORE -scope TENANT:ORG|NAME -family F [-limit N] [-after HEX] [-o table|json]",
		short: "list a tenant's keys, decoded, a page at a time", store: storeAny, scope: true, output: "keyPage", define: debugKeys},
	{path: "debug layout", synopsis: "debug layout",
		short: "print the key layout document (docs/key-layout.md)", nargs: -1, define: debugLayout},
}
