// Package renamed imports the authority under another name.
package renamed

import st "telha.dev/core/storage"

// Key builds a system job key.
func Key() st.Key {
	return st.SystemScope{}.JobKey(0, 0, 0, [16]byte{}) // want `storage.SystemScope used` `storage.SystemScope.JobKey used`
}
