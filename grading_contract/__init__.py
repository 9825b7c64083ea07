"""The grading contract: what the service and the grader workers say to each other.

Job and result shapes (``job``, ``result``), the two queues and their JSON transport
(``queues``), the queue settings (``config``) and the HMAC signature every message carries
(``signing``). Both ``lti_service`` and ``grader_worker`` import this package; neither imports
the other, and this package imports neither.
"""
