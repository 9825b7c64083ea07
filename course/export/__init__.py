"""`pathways course export`: LMS packages (IMS Common Cartridge 1.3 with LTI 1.3 links, and a
QTI 1.2 checkpoint quiz for Canvas)."""

from course.export.cartridge import canvas_qti, cartridge, export, launch_url
from course.export.qti import ExportError, checkpoints_qti

__all__ = ["ExportError", "canvas_qti", "cartridge", "checkpoints_qti", "export", "launch_url"]
