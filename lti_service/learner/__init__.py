"""The learner feature: the lesson page with its checkpoint and exercise forms, and My learning
(``views``); what they read and record (``service``, ``models``)."""
