"""The Alexa adapter: ask-sdk handlers over the narrator, the web service, the Lambda."""
