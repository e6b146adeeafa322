// A program using PipelineCore and CodersTIFF only; ProductLinkageTests reads what it links.
import CodersTIFF
import PipelineCore

ImageCodersManager.shared.add(TIFFCoder())
print(ImageCodersManager.shared.coders.count)
