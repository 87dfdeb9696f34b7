import Foundation

/// Decides, photo by photo, what a report's card shows, within the
/// limits: the photo as stored, the photo scaled down (``PhotoScaler``),
/// or a sentence saying why there is none.
///
/// A photo several ties share is read, scaled and embedded once (by its
/// SHA-256); the page names it by one CSS class.
struct PhotoEmbedder {
    enum Shown {
        case none
        /// A `data:` URI.
        case embedded(String)
        case leftOut(String)
    }

    let limits: HTMLReport.Limits
    let read: HTMLReport.PhotoReader
    /// What each distinct photo became, by SHA-256.
    private var known: [String: Shown] = [:]
    private(set) var embedded = 0
    private(set) var bytesEmbedded = 0
    private(set) var scaled = 0
    /// Cards whose photo is not shown.
    private(set) var leftOut = 0

    init(limits: HTMLReport.Limits, read: @escaping HTMLReport.PhotoReader) {
        self.limits = limits
        self.read = read
    }

    mutating func photo(for tie: BowTie) throws -> Shown {
        guard let info = tie.photo else { return .none }
        let shown: Shown
        if let decided = known[info.sha256] {
            shown = decided
        } else {
            shown = try decide(tie)
            // A photo left out for the budget might fit a later card's
            // smaller one, but this one stays out: it is decided once.
            known[info.sha256] = shown
        }
        if case .leftOut = shown { leftOut += 1 }
        return shown
    }

    private var spent: Shown {
        .leftOut("Photo not embedded: the report's \(HTMLReport.bytes(limits.photoBudget)) for photos is spent")
    }

    private mutating func decide(_ tie: BowTie) throws -> Shown {
        if bytesEmbedded >= limits.photoBudget { return spent }
        let data: Data
        switch try read(tie) {
        case nil:
            return .none
        case .failure(let problem)?:
            return .leftOut("Photo unavailable: \(problem) (run bowties check)")
        case .success(let bytes)?:
            data = bytes
        }
        var format = ImageFormat(data: data)
        var bytes = data
        var wasScaled = false
        switch format {
        case .png, .jpeg:
            switch PhotoScaler.scale(data, toFit: limits.photoSide) {
            case .failure(let failure):
                return .leftOut("Photo not embedded: \(failure)")
            case .success(let small):
                let fits = max(small.originalWidth, small.originalHeight) <= limits.photoSide
                if !fits || data.count > limits.photoBytes {
                    (bytes, format, wasScaled) = (small.data, small.format, true)
                }
            }
        case .gif, .webp:
            break
        case .heic:
            return .leftOut("HEIC photo: browsers cannot show it")
        case .unknown:
            return .leftOut("Photo not embedded: not an image format browsers show")
        }
        if bytes.count > limits.photoBytes {
            return .leftOut(
                "Photo not embedded: \(HTMLReport.bytes(bytes.count)) is over the report's "
                    + "\(HTMLReport.bytes(limits.photoBytes)) limit for one photo")
        }
        if bytesEmbedded + bytes.count > limits.photoBudget { return spent }
        embedded += 1
        if wasScaled { scaled += 1 }
        bytesEmbedded += bytes.count
        let type = format == .jpeg ? "image/jpeg" : "image/\(format.rawValue.lowercased())"
        return .embedded("data:\(type);base64," + bytes.base64EncodedString())
    }
}
