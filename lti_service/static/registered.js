// Tells the LMS that Dynamic Registration is done (LTI-DR: the platform closes its dialog).
"use strict";
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
