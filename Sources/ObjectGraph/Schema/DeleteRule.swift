/// What deleting an object does to the objects its relationship points to.
public enum DeleteRule: String, Hashable, Sendable, CaseIterable, Codable {
  /// The destinations stay; their inverse relationship forgets the deleted
  /// object.
  case nullify
  /// The destinations are deleted too, applying their own rules.
  case cascade
  /// The save fails while the relationship still holds an object that is
  /// not deleted in the same save.
  case deny
}
