// Heap bytes per object of the object graph.
//
//   swift run -c release ObjectGraphMemory            # 100,000 objects
//   swift run -c release ObjectGraphMemory 10000 1000000
//
// For each count: creates a context (no notification center), reads glibc's
// count of heap bytes in use (mallinfo2: arena blocks plus mapped blocks),
// inserts that many objects of five attributes (string, integer, double,
// boolean, date) and saves them once, drops the save's result, keeps the
// context alive and reads the count again. The difference divided by the
// count is the gross figure per object; the net figure subtracts the values
// themselves, five FilterValues (strings are at most 15 UTF-8 bytes, which
// Swift stores inline, so they have no payload of their own).
//
// Figures: docs/benchmarks.md.

import BenchmarkSupport
import MallocInfo
import ObjectGraph
import PredicateDSL

let schema = BenchmarkSchemas.datedPeople
let names = ["Alice", "Albert", "Anna", "Ariane", "Bob", "Alexandre", "Amelie", "Aaron", "Caroline", "Ada"]
precondition(names.allSatisfy { $0.utf8.count <= 15 }, "names must be stored inline")

func values(_ index: Int) -> [String: FilterValue] {
  [
    "name": .string(names[index % names.count]), "age": .int(Int64(18 + index % 63)),
    "score": .double(Double(index % 1_000) / 10), "active": .bool(index % 10 != 0),
    "born": .date(secondsSinceReferenceDate: Double(index) * 1_000),
  ]
}

struct Measurement {
  var count: Int
  /// Heap bytes per object after the inserts, before the save.
  var beforeSave: Double
  /// Heap bytes per object after the save (the figure that stays).
  var afterSave: Double
  /// The heap block of one ManagedObject instance.
  var objectBlock: Int
}

func measure(_ count: Int) -> Measurement {
  let context = ObjectContext(schema: schema, name: "memory", notificationCenter: nil)
  return context.performAndWait { context in
    let start = malloc_info_bytes_in_use()
    for index in 0..<count { try! context.insert("Person", values: values(index)) }
    let inserted = malloc_info_bytes_in_use()
    let saved = try! context.save()?.inserted.count
    precondition(saved == count, "saved \(saved ?? 0) of \(count)")
    let end = malloc_info_bytes_in_use()
    let objects = try! context.objects(of: "Person")
    precondition(objects.count == count && objects[count / 2]["name"] == .string(names[(count / 2) % names.count]))
    let objectBlock = malloc_info_block_size(Unmanaged.passUnretained(objects[0]).toOpaque())
    return Measurement(
      count: count, beforeSave: Double(inserted - start) / Double(count),
      afterSave: Double(end - start) / Double(count), objectBlock: objectBlock)
  }
}

let valueBytes = 5 * MemoryLayout<FilterValue>.stride
let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }

// A first, small context loads what is allocated once (type metadata,
// Dispatch's structures, the schema's layouts) before anything is counted.
_ = measure(1_000)
precondition(malloc_info_bytes_in_use() > 0, "mallinfo2() is not available here")

print("FilterValue: size \(MemoryLayout<FilterValue>.size), stride \(MemoryLayout<FilterValue>.stride) bytes;")
print("values of one object (5 FilterValues): \(valueBytes) bytes")
for count in counts.isEmpty ? [100_000] : counts {
  let result = measure(count)
  let gross = result.afterSave
  print(
    "\(count) objects: gross \(String(format: gross)) B/object after the save "
      + "(\(String(format: result.beforeSave)) before it), net \(String(format: gross - Double(valueBytes))) B/object "
      + "beyond the values; one ManagedObject's own heap block: \(result.objectBlock) B usable")
}

extension String {
  init(format value: Double) {
    self = String(Double(Int((value * 10).rounded())) / 10)
  }
}
