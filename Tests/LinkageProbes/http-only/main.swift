// A program using PipelineCore and LoaderHTTP only; ProductLinkageTests reads what it links.
import LoaderHTTP
import PipelineCore

ImageLoadersManager.shared.add(HTTPLoader.shared)
print(ImageLoadersManager.shared.loaders.count)
