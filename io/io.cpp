// io: Qt Core only.
