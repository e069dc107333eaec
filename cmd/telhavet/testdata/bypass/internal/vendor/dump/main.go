// Command dump lies in a directory named vendor below the module's root,
// which ./... skips and no package may import (the go command reserves
// such paths for vendored code); go run ./internal/vendor/dump builds it
// all the same.
package main

import (
	"fmt"

	"telha.dev/core/storage"
)

func main() {
	fmt.Println(storage.SystemScope{}.FullFamily(storage.Jobs).Valid()) // bypass
}
