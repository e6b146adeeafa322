// A program using PipelineCore and CodersBMP only; ProductLinkageTests reads what it links.
import CodersBMP
import PipelineCore

ImageCodersManager.shared.add(BMPCoder())
print(ImageCodersManager.shared.coders.count)
