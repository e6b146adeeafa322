import Foundation
import ImagePipe
import PipelineCore

/// Anything that shows loaded images: a GUI widget binding, a terminal view, a server-side render
/// slot. The Linux stand-in for SDWebImage's view categories (`UIImageView+WebCache`,
/// `UIButton+WebCache`, `UIImageView+HighlightedWebCache`): conform, then call
/// `setImage(with:placeholder:slot:options:context:completed:progress:)`.
///
/// A class, because loads are bound to the object's identity: a new request for the same
/// operation key cancels the previous one, and the operations end when nobody holds them.
///
/// Two kinds of conformer, both checked by the compiler:
/// - A class that lives on an actor conforms with an isolated conformance and is only ever touched
///   there: `@MainActor final class Cell: @MainActor ImageTarget`. It calls `setImage` from that
///   actor, and every `display`, indicator, transition and completion runs on it; the placeholder
///   (or a memory-cache hit) is shown before `setImage` returns.
/// - A `Sendable` class can be given images from anywhere. Called from an actor, its updates run on
///   that actor (the placeholder at once, as above) unless the context names a `.callbackExecutor`;
///   called from no actor, on one serial executor per target, so it is never updated from two
///   threads at once.
public protocol ImageTarget: AnyObject {
    /// Shows `image` in `slot`; nil clears it (a nil placeholder does that, as in SDWebImage).
    func display(_ image: Image?, in slot: ImageSlot)

    /// Shows what a load produced with everything known about it — the image, its bytes, where it
    /// came from and its URL — as SDWebImage's `setImageBlock` receives it. A placeholder comes with
    /// no data and cache type `.none`. Default: `display(result.image, in: slot)`.
    func display(_ result: ImageResult, in slot: ImageSlot)

    /// Shown while a load runs (SDWebImage's `sd_imageIndicator`). Default: none.
    var imageIndicator: (any ImageIndicator)? { get }

    /// Applied when a loaded image arrives (SDWebImage's `sd_imageTransition`). Default: none.
    var imageTransition: (any ImageTransition)? { get }
}

extension ImageTarget {
    public func display(_ result: ImageResult, in slot: ImageSlot) { display(result.image, in: slot) }
    public var imageIndicator: (any ImageIndicator)? { nil }
    public var imageTransition: (any ImageTransition)? { nil }
}

/// A place on a target an image goes: the main image, the highlighted image, or a control state's
/// image or background image. Every slot has its own operation key, so loads for different slots
/// never cancel each other.
public struct ImageSlot: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    /// The main image (`UIImageView.image`).
    public static let image = ImageSlot("image")
    /// `UIImageView.highlightedImage`.
    public static let highlightedImage = ImageSlot("highlightedImage")

    /// A button's image for one state (`UIButton setImage:forState:`).
    public static func image(for state: ControlState) -> ImageSlot { ImageSlot("image.\(state.rawValue)") }

    /// A button's background image for one state.
    public static func backgroundImage(for state: ControlState) -> ImageSlot { ImageSlot("backgroundImage.\(state.rawValue)") }

    /// The operation key of this slot on a target of `targetType` when the context names none: the
    /// type's name for the main image (SDWebImage uses the class name), the name plus the slot's
    /// otherwise, as SDWebImage's highlighted and per-state keys are distinct strings.
    func defaultOperationKey(for targetType: Any.Type) -> String {
        let typeName = String(describing: targetType)
        return self == .image ? typeName : "\(typeName).\(name)"
    }

    public var description: String { name }
}

/// The states of a control whose image depends on it (`UIControlState`).
public enum ControlState: String, Hashable, Sendable, CaseIterable {
    case normal, highlighted, disabled, selected
}
