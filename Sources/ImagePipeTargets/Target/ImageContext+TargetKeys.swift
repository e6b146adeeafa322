import ImagePipe
import PipelineCore

extension ImageContext.Key where Value == ImageManager {
    /// `customManager`: the manager a target's load goes through. Default: `ImageManager.shared`.
    /// Targets take it out of the context they pass on, as SDWebImage does, so the manager is not
    /// carried (and kept alive) by its own requests.
    public static var imageManager: Self { .init("imageManager") }
}

extension ImageContext.Key where Value == String {
    /// `setImageOperationKey`: the operation a target's load belongs to. Default: the target's type name.
    public static var operationKey: Self { .init("operationKey") }
}
