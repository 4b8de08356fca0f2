import JSONAtomicStore
print("not written yet")
