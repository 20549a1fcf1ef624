import PredicateDSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a record from a snapshot: a `Decoder` whose keyed container is the
/// snapshot's keys, with no round trip through JSON.
///
/// `Decodable`'s protocol lets a type ask for any container; a record asks
/// for a keyed one, and a value inside it (a `RawRepresentable` enum, a
/// wrapper) for a single value, which ``RecordValueDecoder`` gives.
///
/// A class, so that its keyed container holds one reference where the
/// snapshot would be three, copied at every read through the container's
/// box.
///
/// Each thread reads its records with a decoder of its own
/// (``start(reading:)``), which needs no lock, and the decoder keeps the
/// keyed container it last handed out: a record type asks for a container
/// of the same key type for every record, and making one (the standard
/// library's box, allocated, and its type and conformance looked up at run
/// time) costs more than reading a few attributes.
///
/// Decoders are never deallocated: when its thread ends, a decoder waits in
/// ``idle`` for the next thread that reads a record, so there are as many
/// as threads have read records at once (each with the nested decoders of
/// its deepest nesting). So a keyed container refers to its decoder without
/// counting the reference (the standard library's box copies the container
/// for every value it reads, and a counted reference would cost an atomic
/// retain and release each time), and the decoder outlives every container
/// it hands out. A container is used inside its record's `init(from:)`, on
/// the thread reading the record; one kept past that traps when it reads
/// (``current(_:)``) between records, or after the decoder went to another
/// thread (its ``lease`` is then over). Inside a later record's
/// `init(from:)` on the same thread it reads that record: the decoder
/// hands the same container (``kept``) to every record of a type.
@usableFromInline
final class RecordDecoder: Decoder {
  /// The snapshot being read, where the caller holds it, read in place (a
  /// copy held by the decoder would cost retaining and releasing its
  /// references for every record, and a stored snapshot that changes would
  /// be copied at every read); nil between records.
  @exclusivity(unchecked) private var reading: UnsafePointer<ObjectSnapshot>?
  /// The key type of ``kept``.
  private var keyType: ObjectIdentifier?
  /// The keyed container last handed out, of ``keyType``'s keys. It reads
  /// whatever snapshot the decoder reads.
  private var kept: KeptContainer?

  /// The slots of the keys a record read, in the order it read them, for
  /// the entity it read them from: a record type reads its keys in the
  /// same order for every record, so the next read's key is most likely
  /// the cached one, whose slot is then taken after one comparison of the
  /// names instead of a search of the entity's keys. In storage of the
  /// decoder's own, changed in place.
  private let slots: UnsafeMutablePointer<SlotCache>

  /// Which of the decoder's threads is using it: a container made during
  /// one lease reads nothing during the next, when another thread may be
  /// using the decoder.
  private(set) var lease: UInt32 = 0

  /// A decoder for a record read while this one reads another (a record's
  /// `init(from:)` that decodes a snapshot), made at the first such read
  /// and kept with this one.
  private var nestedDecoder: RecordDecoder?

  /// The decoders of threads that ended, for threads that start reading.
  private static let idle = LockedState<[RecordDecoder]>([])

  /// The key under which each thread keeps its decoder; its destructor
  /// moves the decoder to ``idle`` when the thread ends.
  private static let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { retireThreadDecoder($0) }
    precondition(status == 0, "pthread_key_create failed with \(status)")
    return key
  }()

  /// Starts reading `snapshot` with the thread's decoder, or, while it
  /// reads another record (a record's `init(from:)` that decodes a
  /// snapshot), with the first of its nested decoders that reads none: the
  /// decoder to hand the record's `init(from:)`, and to ``finish(_:)``
  /// after, thrown or not. Not counted: the thread's slot holds its
  /// decoder, and each decoder its nested one.
  ///
  /// - Precondition: `snapshot` stays where it is, unchanged, until
  ///   ``finish(_:)``.
  @usableFromInline
  static func start(reading snapshot: UnsafePointer<ObjectSnapshot>) -> Unmanaged<RecordDecoder> {
    let decoder: Unmanaged<RecordDecoder>
    if let stored = pthread_getspecific(threadKey) {
      decoder = Unmanaged.fromOpaque(stored)
    } else {
      decoder = Unmanaged.passRetained(idle.withLock { $0.popLast() } ?? RecordDecoder())
      pthread_setspecific(threadKey, decoder.toOpaque())
    }
    return decoder._withUnsafeGuaranteedRef { $0.start(snapshot) }
  }

  /// Starts reading `snapshot` with this decoder, or with its nested one
  /// when this one is reading already.
  private func start(_ snapshot: UnsafePointer<ObjectSnapshot>) -> Unmanaged<RecordDecoder> {
    guard reading == nil else { return startNested(snapshot) }
    reading = snapshot
    slots.pointee.next = 0
    return Unmanaged.passUnretained(self)
  }

  @inline(never)
  private func startNested(_ snapshot: UnsafePointer<ObjectSnapshot>) -> Unmanaged<RecordDecoder> {
    if let nestedDecoder { return nestedDecoder.start(snapshot) }
    let nested = RecordDecoder()
    nestedDecoder = nested
    return nested.start(snapshot)
  }

  /// Ends the read `decoder` started.
  @usableFromInline
  static func finish(_ decoder: Unmanaged<RecordDecoder>) {
    decoder._withUnsafeGuaranteedRef { $0.reading = nil }
  }

  /// What a record's `init(from:)` threw, as the error a read throws: an
  /// `ObjectGraphError` as it is, anything else named after the record
  /// type and the entity.
  @usableFromInline
  static func failure(_ error: any Error, reading type: Any.Type, of entity: String) -> ObjectGraphError {
    if let error = error as? ObjectGraphError { return error }
    return RecordDecoder.error(entity, "\(type)'s init(from:) threw: \(error)")
  }

  /// Moves a thread's decoder to ``idle`` as the thread ends, its lease
  /// over.
  fileprivate static func retire(_ pointer: UnsafeMutableRawPointer) {
    let decoder = Unmanaged<RecordDecoder>.fromOpaque(pointer).takeRetainedValue()
    decoder.endLease()
    idle.withLock { $0.append(decoder) }
  }

  /// Ends the lease of this decoder and of its nested ones: the containers
  /// they handed out read nothing from now on, and nothing is being read
  /// (a thread that exits inside a record's `init(from:)` leaves its read
  /// unfinished).
  private func endLease() {
    lease &+= 1
    reading = nil
    kept = nil
    keyType = nil
    nestedDecoder?.endLease()
  }

  private init() {
    slots = .allocate(capacity: 1)
    slots.initialize(to: SlotCache())
  }

  deinit {
    slots.deinitialize(count: 1)
    slots.deallocate()
  }

  /// Where the snapshot being read is, for a container of `lease`.
  ///
  /// - Precondition: A record is being read, and the container is of the
  ///   decoder's lease: a decoder or container kept by a record's
  ///   `init(from:)` past its return reads nothing.
  @inline(__always)
  private func current(_ lease: UInt32) -> UnsafePointer<ObjectSnapshot> {
    guard let reading, lease == self.lease else { Self.usedAfterReading() }
    return reading
  }

  @inline(never)
  private static func usedAfterReading() -> Never {
    preconditionFailure("a record's decoder or keyed container was used after the record's init(from:) returned")
  }

  /// The snapshot being read (a copy), for a container of `lease`.
  func snapshot(_ lease: UInt32) -> ObjectSnapshot { current(lease).pointee }

  /// The snapshot being read (a copy).
  var snapshot: ObjectSnapshot { current(lease).pointee }

  /// Where `key`'s property is in the snapshot being read, for a
  /// container of `lease`: the snapshot is not copied around the lookup of
  /// the key's slot (which would retain and release its three
  /// references), since its holder keeps it, unchanged, while the record
  /// is read.
  @inline(__always)
  func locate(_ key: String, _ lease: UInt32) -> Location {
    let snapshot = current(lease)
    let layout = Unmanaged.passUnretained(snapshot.pointee.layout)
    return Location(snapshot: snapshot, slot: slots.pointee.slot(key, in: layout))
  }

  /// A key's place in the snapshot being read.
  struct Location {
    /// The snapshot, where its holder keeps it while the record is read.
    let snapshot: UnsafePointer<ObjectSnapshot>
    /// The key's slot; nil when the entity has no such key.
    let slot: PropertySlot?

    /// The key's property (a copy of its value).
    @inline(__always)
    var property: PropertyValue? {
      switch slot {
      case .attribute(let slot): .attribute(snapshot.pointee.values[slot])
      case .relationship(let slot): .relationship(snapshot.pointee.relationships[slot])
      case nil: nil
      }
    }
  }

  /// The slots of the keys read so far, in reading order, for one entity
  /// (a nested type: the decoder's alone).
  struct SlotCache {
    /// The entity the slots are of (its layout's address).
    var layout: UnsafeMutableRawPointer?
    /// That entity's layout, held so that its address names no other
    /// entity while its slots are cached (a layout made after it is freed
    /// may be given its address).
    var owner: EntityLayout?
    /// Each read's key and its slot (nil for a key the entity does not
    /// have).
    var entries: [(key: String, slot: PropertySlot?)] = []
    /// The index of the next read in ``entries``.
    var next = 0

    /// The slot of `key` in `layout`: the cached one when the read at this
    /// place was of the same key in the same entity, else searched for and
    /// cached.
    @inline(__always)
    mutating func slot(_ key: String, in layout: Unmanaged<EntityLayout>) -> PropertySlot? {
      let index = next
      next = index + 1
      let entity = layout.toOpaque()
      if entity == self.layout, index < entries.count, entries[index].key == key { return entries[index].slot }
      return miss(key, at: index, in: layout, entity: entity)
    }

    @inline(never)
    private mutating func miss(
      _ key: String, at index: Int, in layout: Unmanaged<EntityLayout>, entity: UnsafeMutableRawPointer
    ) -> PropertySlot? {
      if entity != self.layout {
        self.layout = entity
        owner = layout.takeUnretainedValue()
        entries.removeAll(keepingCapacity: true)
      }
      let slot = layout._withUnsafeGuaranteedRef { $0.slot(key) }
      if index < entries.count {
        entries[index] = (key, slot)
      } else if index == entries.count {
        entries.append((key, slot))
      }
      return slot
    }
  }

  @usableFromInline var codingPath: [any CodingKey] { [] }
  @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

  @usableFromInline
  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    if keyType == ObjectIdentifier(Key.self), let kept = kept.map(Unmanaged.passUnretained) {
      // The decoder holds the kept container: no retain around the copy.
      return kept._withUnsafeGuaranteedRef { unsafeDowncast($0, to: KeptKeyedContainer<Key>.self).copy() }
    }
    let made = KeyedDecodingContainer(
      RecordKeyedDecodingContainer<Key>(decoder: Unmanaged.passUnretained(self), lease: lease))
    kept = KeptKeyedContainer(copy: copies(made))
    keyType = ObjectIdentifier(Key.self)
    return made
  }

  @usableFromInline
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it has no unkeyed form")
  }

  @usableFromInline
  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it is not a single value")
  }

  /// `Person has no key 'agee' (did you mean 'age'?)`: a record's key that
  /// its entity does not have.
  static func unknownKey(_ key: String, of entity: String, keys: [String]) -> ObjectGraphError {
    let guess = UnknownField.suggestion(for: key, among: keys).map { " (did you mean '\($0)'?)" } ?? ""
    return ObjectGraphError(
      .unknownKey,
      "\(entity) has no key '\(key)'\(guess): name the record's property after a key, or map it with CodingKeys")
  }

  /// An error about a record of `entity`: `Person.age: the integer 300 does
  /// not fit UInt8`.
  static func error(_ place: String, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(.typeMismatch, "\(place): \(reason)")
  }
}

/// A keyed container a decoder keeps; a ``KeptKeyedContainer`` of the
/// decoder's key type.
fileprivate class KeptContainer {}

/// A keyed container a decoder keeps, for records whose keys are `Key`.
fileprivate final class KeptKeyedContainer<Key: CodingKey>: KeptContainer {
  /// Returns a copy of the container (made by ``copies(_:)``).
  let copy: () -> KeyedDecodingContainer<Key>

  init(copy: @escaping () -> KeyedDecodingContainer<Key>) { self.copy = copy }
}

/// A closure that returns copies of `value`, made where the value's type
/// is a generic parameter, so that the closure's context holds that
/// type's metadata: copying a `KeyedDecodingContainer<Key>` in code
/// generic over `Key` looks the container type up at run time each time
/// (its layout is the standard library's to change), which costs a tenth
/// of reading a record. Not specialized: a copy specialized for
/// `KeyedDecodingContainer<Key>` would be generic over `Key` again, and so
/// look the container type up at every copy.
@inline(never)
@_semantics("optimize.sil.specialize.generic.never")
private func copies<Value>(_ value: Value) -> () -> Value { { value } }

/// The thread-local decoder's destructor (its argument is optional on some
/// platforms, not on others: one function for each).
private func retireThreadDecoder(_ pointer: UnsafeMutableRawPointer?) {
  if let pointer { RecordDecoder.retire(pointer) }
}

private func retireThreadDecoder(_ pointer: UnsafeMutableRawPointer) {
  RecordDecoder.retire(pointer)
}
