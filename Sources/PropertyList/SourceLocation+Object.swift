extension SourceLocation {
    /// An object of a database rather than a place in a text: the file
    /// names the database and the entity (`Store.sqlite: BowTie`), and
    /// the object is told by its number (Core Data's `Z_PK`), shown as
    /// `Store.sqlite: BowTie p3`, as Core Data's objectIDs end in `/p3`.
    ///
    /// Stored as line -1 (which no text or binary location has) with the
    /// number in ``column``: a location stays three words, and one file
    /// name serves every object of the entity.
    public init(fileName: FileName, objectNumber: Int) {
        self.init(fileName: fileName, line: -1, column: objectNumber)
    }

    /// The object's number, for a location in a database; `nil` otherwise.
    public var objectNumber: Int? { line == -1 ? column : nil }
}
