// A program using PipelineCore and CodersPNG only, as a user picking those products would build
// it; ProductLinkageTests reads what it links.
import CodersPNG
import PipelineCore

ImageCodersManager.shared.add(PNGCoder())
print(ImageCodersManager.shared.coders.count)
