package vector

import (
	"sync"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/models"
)

// modelCache keeps the latest definition of each model searched, read at a
// write stamp of the engine (storage.WriteStamp). While the engine's stamp
// is unchanged nothing was written, so the registry still holds that
// definition, and a search of "now" needs no scan of the model's history
// to find it. On an engine without stamps (etcd) every lookup reads the
// registry, as other processes may redefine the model at any time.
type modelCache struct {
	known sync.Map // model name → knownModel
}

// knownModel is the latest version of a model as of a write stamp.
type knownModel struct {
	stamp uint64
	model Model
}

// lookup returns the version of the model name current at tx time tx,
// as models.LookupModelAsOf(eng, name, tx) does.
func (c *modelCache) lookup(eng storage.Engine, name string, tx storage.Timestamp) (Model, error) {
	stamp, stamped := storage.WriteStamp(eng)
	if !stamped {
		return models.LookupModelAsOf(eng, name, tx)
	}
	if v, ok := c.known.Load(name); ok {
		if k := v.(knownModel); k.stamp == stamp && k.model.TxStart <= tx {
			return k.model, nil
		}
	}
	latest, err := models.LookupModelAsOf(eng, name, storage.MaxTimestamp)
	if err != nil {
		return Model{}, err
	}
	c.known.Store(name, knownModel{stamp: stamp, model: latest})
	if latest.TxStart <= tx {
		return latest, nil
	}
	return models.LookupModelAsOf(eng, name, tx)
}
