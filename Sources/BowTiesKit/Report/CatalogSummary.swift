import Foundation

/// The figures at the top of a report, computed over every tie it covers.
///
/// ```swift
/// let summary = try catalog.summary(matching: query)   // SQL aggregates
/// let summary = CatalogSummary(ties, now: Date())      // ties in memory
/// summary.favourites      // 1
/// summary.mostWorn?.tie   // B, worn 21 times
/// ```
public struct CatalogSummary: Sendable {
    /// A tie that stands out, and how many others share its figure.
    public struct Standout: Sendable {
        public var tie: BowTie
        public var timesWorn: Int32
        /// Other ties worn exactly as often.
        public var others: Int
    }

    public var ties: Int
    public var favourites: Int
    /// The tie worn most often (nil when none was ever worn).
    public var mostWorn: Standout?
    /// The tie worn least often among those worn at least once.
    public var leastWorn: Standout?
    /// Ties never worn (`timesWorn` 0).
    public var neverWorn: Int
    /// Ties not worn in the ``staleDays`` before `now`, those never worn included.
    public var notWornRecently: Int
    public static let staleDays = 90
    /// Ties that have a photo.
    public var withPhoto: Int
    /// Bytes of the distinct photos (a photo several ties share counts once).
    public var photoBytes: Int

    /// Figures counted elsewhere (``Catalog/summary(matching:now:)``: SQL
    /// aggregates).
    init(
        ties: Int, favourites: Int, mostWorn: Standout?, leastWorn: Standout?, neverWorn: Int,
        notWornRecently: Int, withPhoto: Int, photoBytes: Int
    ) {
        self.ties = ties
        self.favourites = favourites
        self.mostWorn = mostWorn
        self.leastWorn = leastWorn
        self.neverWorn = neverWorn
        self.notWornRecently = notWornRecently
        self.withPhoto = withPhoto
        self.photoBytes = photoBytes
    }

    /// Counts the figures of ties in memory (tests; small selections).
    ///
    /// - Parameters:
    ///   - ties: The ties the report covers.
    ///   - now: The moment "90 days ago" counts back from.
    public init(_ ties: [BowTie], now: Date) {
        self.ties = ties.count
        favourites = 0
        neverWorn = 0
        notWornRecently = 0
        withPhoto = 0
        photoBytes = 0
        let cutoff = now.addingTimeInterval(-Double(Self.staleDays) * 86_400)
        var photos: Set<String> = []
        for tie in ties {
            if tie.isFavorite { favourites += 1 }
            let worn = tie.timesWorn
            if worn == 0 { neverWorn += 1 }
            if tie.lastWorn.map({ $0 < cutoff }) ?? true { notWornRecently += 1 }
            if let photo = tie.photo {
                withPhoto += 1
                if photos.insert(photo.sha256).inserted { photoBytes += photo.byteCount }
            }
            if worn > 0 {
                Self.keep(&mostWorn, tie, worn, if: >)
                Self.keep(&leastWorn, tie, worn, if: <)
            }
        }
    }

    /// Keeps the first tie whose figure is best by `better`, counting the
    /// ties that equal it.
    private static func keep(
        _ standout: inout Standout?, _ tie: BowTie, _ worn: Int32, if better: (Int32, Int32) -> Bool
    ) {
        guard let current = standout else {
            standout = Standout(tie: tie, timesWorn: worn, others: 0)
            return
        }
        if better(worn, current.timesWorn) {
            standout = Standout(tie: tie, timesWorn: worn, others: 0)
        } else if worn == current.timesWorn {
            standout?.others += 1
        }
    }
}
