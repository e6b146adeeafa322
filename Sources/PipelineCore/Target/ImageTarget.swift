import Foundation

/// Anything that shows loaded images: a GUI widget binding, a terminal view, a server-side render
/// slot. The Linux stand-in for SDWebImage's view categories (`UIImageView+WebCache`,
/// `UIButton+WebCache`, `UIImageView+HighlightedWebCache`): conform, then call
/// `setImage(with:placeholder:slot:options:context:progress:completed:)`.
///
/// A class, because loads are bound to the object's identity: a new request for the same
/// operation key cancels the previous one, and the operations end when nobody holds them.
/// `display(_:in:)` is called on the request's callback executor — by default one serial executor
/// per target — so a target is never updated from two threads at once.
public protocol ImageTarget: AnyObject, Sendable {
    /// Shows `image` in `slot`; nil clears it (a nil placeholder does that, as in SDWebImage).
    func display(_ image: Image?, in slot: ImageSlot)

    /// Shown while a load runs (SDWebImage's `sd_imageIndicator`). Default: none.
    var imageIndicator: (any ImageIndicator)? { get }

    /// Applied when a loaded image arrives (SDWebImage's `sd_imageTransition`). Default: none.
    var imageTransition: (any ImageTransition)? { get }
}

extension ImageTarget {
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
