extension MasterFilter {
  /// The watches applying to objects of one entity.
  struct Bucket {
    var unindexed = SlotList()
    /// The watches that name their objects (an instance filter), filed
    /// under each object they name and nowhere else in the bucket.
    var instances: [InstanceKey: SlotList] = [:]
    /// Per indexed attribute slot, the watches filed under each key. An
    /// entity has few indexed attributes: a short array, walked for every
    /// object, costs less than a dictionary.
    var indexes: [(attribute: Int, keys: KeyTable)] = []
    /// Per attribute slot, the watches indexed by range.
    var ranges: [Int: BufferedRangeIndex] = [:]
    /// Per string attribute slot, the watches indexed by string range.
    var textRanges: [Int: TextRangeIndex] = [:]
    var count = 0

    /// The position of the index of `attribute`, added empty if need be.
    mutating func indexPosition(of attribute: Int) -> Int {
      if let position = indexes.firstIndex(where: { $0.attribute == attribute }) { return position }
      indexes.append((attribute, KeyTable()))
      return indexes.count - 1
    }
  }
}
