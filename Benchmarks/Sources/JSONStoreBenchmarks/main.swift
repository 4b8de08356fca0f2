import JSONAtomicStore
print("JSONStoreBenchmarks: not written yet")
