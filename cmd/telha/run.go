package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parseFlags parses a command's flags. On -h or -help it prints the
// command's usage and flags on stdout and returns errHelp; on bad flags, a
// usage error naming the command.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return errHelp
	}
	if err != nil {
		return usagef("%s: %v (%s)", fs.Name(), err, usage)
	}
	return nil
}

const usage = `usage:
  telha demo [-data DIR] [-force]         build a three-tenant demo graph in an embedded RocksDB store and query it
  telha demo -etcd ENDPOINTS              the same demo on an etcd cluster
  telha cluster -data DIR [-members 3] [-port P]  run an etcd cluster on loopback until interrupted
  telha repair -data DIR                  make a damaged store open again, reporting what was dropped
  telha source put|get|facts -data DIR -scope TENANT:ORG ...  ingest a document, print it, list the facts taken from it
  telha tenant provision|list|export|import|erase|verify -data DIR ...  the tenant lifecycle (telha tenant help)
  telha entity erase -data DIR -scope TENANT:ORG -id UUID  erase one entity physically
  telha checkpoint -data DIR -to CKPT     write a consistent copy of a store
  telha ledger export -data DIR -o FILE   write the erasure ledger to a file
  telha restore -from CKPT -data NEWDIR -ledger DIR_OR_LEDGER_FILE [-foreign-ledger]  restore a checkpoint, replaying later erasures
  telha serve -data DIR [-listen ADDR] [-tls-cert F -tls-key F] [-insecure]  serve the tenant API (gRPC, gRPC-Web, Connect JSON) until interrupted
  telha serve -etcd ENDPOINTS ...         the same on an etcd cluster
  telha key create|list|revoke -data DIR ...  API keys of the tenant API (telha key help)
  telha debug decode-key <family> <hex>   render one key readably
  telha debug layout                      print the key layout document (docs/key-layout.md)`

// run executes one invocation and returns its exit code. Errors are reported
// as a single line on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	code := exitStatus(err)
	if code != exitOK {
		fmt.Fprintf(stderr, "telha: %v\n", err)
	}
	return code
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("missing command; %s", oneLine(usage))
	}
	switch args[0] {
	case "cluster":
		return clusterCommand(args[1:], stdout, stderr)
	case memberCommand:
		return memberMain(args[1:], stdout)
	case "debug":
		return debug(args[1:], stdout)
	case "demo":
		return demo(args[1:], stdout, stderr)
	case "repair":
		return repair(args[1:], stdout, stderr)
	case "source":
		return sourceCommand(args[1:], stdout, stderr)
	case "tenant":
		return tenant(args[1:], stdout, stderr)
	case "entity":
		return entity(args[1:], stdout, stderr)
	case "checkpoint":
		return checkpoint(args[1:], stdout, stderr)
	case "ledger":
		return ledgerCommand(args[1:], stdout, stderr)
	case "restore":
		return restore(args[1:], stdout, stderr)
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "key":
		return keyCommand(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintln(stdout, usage)
		return err
	}
	return usagef("unknown command %q; %s", args[0], oneLine(usage))
}
